/**
 * Incidents from probe_success samples: each run of failed samples, from the first failed sample to the first
 * successful one after it. A long window is read a bucket at a time, and each bucket is reduced at once to its
 * runs (BucketRuns), so what the report keeps grows with the incidents, not with the samples.
 */

/** A probe_success sample: [Unix seconds, value]; below 1 is a failed probe. */
export type Sample = readonly [time: number, value: number];

/** A run of failed samples: its first failed sample's time, and the first success after it (null: none yet). */
export type Run = readonly [start: number, end: number | null];

/** One bucket's samples of one target, reduced: the first sample's time and the failed runs, in order. */
export interface BucketRuns {
  readonly first: number;
  readonly runs: readonly Run[];
}

export function failed(value: number): boolean {
  return !(value >= 1);
}

/** The runs of one bucket's samples (in time order); undefined when it has none. */
export function bucketRuns(samples: readonly Sample[]): BucketRuns | undefined {
  if (samples.length === 0) return undefined;
  const runs: Run[] = [];
  let open: number | undefined;
  for (const [time, value] of samples) {
    if (failed(value)) open ??= time;
    else if (open !== undefined) {
      runs.push([open, time]);
      open = undefined;
    }
  }
  if (open !== undefined) runs.push([open, null]);
  return { first: samples[0]![0], runs };
}

/**
 * The runs of consecutive buckets joined, in time order: a run still open at a bucket's end goes on into the next
 * bucket given when that bucket starts with a failed sample, and ends at its first sample otherwise. The buckets
 * given must hold every failed sample and, after each, the next bucket that has samples (the buckets left out
 * are all successes); a run open after the last is open at the window's end.
 */
export function joinedRuns(buckets: readonly BucketRuns[]): Run[] {
  const joined: Run[] = [];
  let open: number | undefined;
  for (const bucket of buckets) {
    let runs = bucket.runs;
    if (open !== undefined) {
      const first = runs[0];
      if (first !== undefined && first[0] === bucket.first) {
        if (first[1] === null) continue; // failed throughout: the run goes on
        joined.push([open, first[1]]);
        runs = runs.slice(1);
      } else joined.push([open, bucket.first]);
      open = undefined;
    }
    for (const run of runs) {
      if (run[1] === null) open = run[0];
      else joined.push(run);
    }
  }
  if (open !== undefined) joined.push([open, null]);
  return joined;
}
