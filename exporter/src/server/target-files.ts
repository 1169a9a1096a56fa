/**
 * The target files of `--sd.targets-dir`, made ready to serve at `/sd/<job>` (../contract/service-discovery.ts).
 *
 * A worker thread (./target-files-worker.ts) reads every `*.json` and `*.json.gz` file of the folder and of its
 * sub-folders one level down (a Deployment mounts each of probekit's target ConfigMaps in one), checks them, and
 * makes each job's answer once: the JSON Prometheus reads, gzipped, with its ETag. Only those answers cross back to
 * this thread, as transferred buffers: at 300,000 targets some 2 MB where the parsed groups would hold some
 * 100 MB, and nothing here parses or serializes, so the serving thread is never held by a large file. A folder
 * whose files did not change since the answers being served were made is not parsed again.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ConfigError } from '../config/load';
import { TARGET_FILES_ROLE, type TargetFilesInput, type TargetFilesReply } from './target-files-messages';

/** One job's answer: its groups as Prometheus' HTTP SD JSON, gzipped. */
export interface ServedJob {
  readonly gzipped: Buffer;
  /** A strong ETag, quoted: a digest of the JSON. */
  readonly etag: string;
  readonly targets: number;
  readonly groups: number;
}

export interface LoadedTargets {
  /** A digest of every file's path and content: the same folder again is `unchanged`. */
  readonly checksum: string;
  readonly jobs: ReadonlyMap<string, ServedJob>;
  readonly files: number;
}

/** What the worker runs: this file (the bundle, or from source through tsx's loader, as the config loader does). */
function workerSource(): string {
  const self = JSON.stringify(__filename.endsWith('.ts') ? join(__dirname, 'target-files-worker.ts') : __filename);
  if (!__filename.endsWith('.ts')) return `require(${self});`;
  return `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${self});`;
}

/**
 * The folder's target files loaded in a worker thread: `unchanged` when its files are those `previousChecksum`
 * was made of; rejects with ConfigError naming the file and what is wrong in it.
 */
export function loadTargetFiles(dir: string, previousChecksum?: string): Promise<LoadedTargets | 'unchanged'> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const worker = new Worker(workerSource(), { eval: true, workerData: { role: TARGET_FILES_ROLE, dir, previousChecksum } satisfies TargetFilesInput });
    const finish = (outcome: () => LoadedTargets | 'unchanged'): void => {
      if (settled) return;
      settled = true;
      try {
        resolve(outcome());
      } catch (error) {
        reject(error as Error);
      }
      void worker.terminate();
    };
    worker.on('message', (reply: TargetFilesReply) => {
      finish(() => {
        switch (reply.kind) {
          case 'unchanged':
            return 'unchanged';
          case 'loaded':
            return {
              checksum: reply.checksum,
              files: reply.files,
              jobs: new Map(reply.jobs.map(({ name, gzipped, ...job }) => [name, { ...job, gzipped: Buffer.from(gzipped.buffer, gzipped.byteOffset, gzipped.byteLength) }])),
            };
          case 'refused':
            throw new ConfigError(reply.file, reply.problems);
          case 'failed':
            throw new Error(`loading the target files of ${dir} failed: ${reply.message}`);
        }
      });
    });
    worker.on('error', (error) =>
      finish(() => {
        throw error;
      }),
    );
    worker.on('exit', (code) =>
      finish(() => {
        throw new Error(`the thread loading the target files of ${dir} stopped (exit code ${code}) before it finished`);
      }),
    );
  });
}

/** The gzipped answer's size and the file count, for the log line. */
export function describeTargets(loaded: LoadedTargets): Record<string, number> {
  let targets = 0;
  let bytes = 0;
  for (const job of loaded.jobs.values()) {
    targets += job.targets;
    bytes += job.gzipped.length;
  }
  return { files: loaded.files, jobs: loaded.jobs.size, targets, gzipped_bytes: bytes };
}
