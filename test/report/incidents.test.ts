import fc from 'fast-check';
import { bucketRuns, joinedRuns, type BucketRuns, type Run, type Sample } from '../../src/report/incidents';

/** The runs of failed samples read straight through, as the definition says. */
function runsOf(samples: readonly Sample[]): Run[] {
  return joinedRuns([bucketRuns(samples)].filter((bucket): bucket is BucketRuns => bucket !== undefined));
}

describe('bucketRuns', () => {
  it('gives the first sample and each run of failures, from its first failure to the first success after it', () => {
    expect(
      bucketRuns([
        [1, 1],
        [2, 0],
        [3, 0],
        [4, 1],
        [5, 0],
      ]),
    ).toEqual({
      first: 1,
      runs: [
        [2, 4],
        [5, null],
      ],
    });
    expect(bucketRuns([])).toBeUndefined();
    expect(bucketRuns([[7, 1]])).toEqual({ first: 7, runs: [] });
  });
});

describe('joinedRuns', () => {
  it('joins a run open at a bucket end with the next bucket that starts failing, and ends it at the first sample of one that does not', () => {
    const buckets = [
      { first: 0, runs: [[5, null]] },
      { first: 10, runs: [[10, null]] },
      {
        first: 20,
        runs: [
          [20, 23],
          [27, null],
        ],
      },
      { first: 40, runs: [] },
    ] satisfies BucketRuns[];
    expect(joinedRuns(buckets)).toEqual([
      [5, 23],
      [27, 40],
    ]);
    expect(joinedRuns(buckets.slice(0, 2))).toEqual([[5, null]]);
  });

  it('finds the runs of the whole window from the buckets with failures and the next bucket with samples after each', () => {
    // Any window of 0/1 samples, cut into buckets anywhere: the buckets kept are those with a failure and, after
    // each, the next one with samples; joining their runs gives the runs read straight through the samples.
    const sampleRun = fc.array(fc.constantFrom(0, 1, 1, 1), { minLength: 1, maxLength: 80 });
    fc.assert(
      fc.property(sampleRun, fc.array(fc.integer({ min: 0, max: 80 }), { maxLength: 12 }), (values, cuts) => {
        const samples: Sample[] = values.map((value, index) => [index * 30, value]);
        const edges = [...new Set([0, ...cuts, samples.length])].sort((a, b) => a - b);
        const buckets = edges.slice(1).map((end, index) => samples.slice(edges[index], end));
        const kept = new Set<number>();
        buckets.forEach((bucket, index) => {
          if (!bucket.some(([, value]) => value === 0)) return;
          kept.add(index);
          const next = buckets.findIndex((later, laterIndex) => laterIndex > index && later.length > 0);
          if (next >= 0) kept.add(next);
        });
        const reduced = [...kept].sort((a, b) => a - b).flatMap((index) => [bucketRuns(buckets[index]!)].filter((bucket): bucket is BucketRuns => bucket !== undefined));
        expect(joinedRuns(reduced)).toEqual(runsOf(samples));
      }),
      { numRuns: 500 },
    );
  });
});
