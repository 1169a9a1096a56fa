/**
 * The thread that reads, checks and serializes the target files of --sd.targets-dir for ./target-files.ts: the
 * files parsed here, and only each job's gzipped answer handed back.
 */
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { gunzip, gzip } from 'node:zlib';
import { TARGET_FILE_PATTERN, type TargetGroup } from '../contract/service-discovery';
import type { Problem } from '../contract/problems';
import { readProblem, readRegularFile } from '../config/regular-file';
import { TARGET_FILES_ROLE, type TargetFilesInput, type TargetFilesReply } from './target-files-messages';

/**
 * The most one target file may hold once unzipped: 256 MiB, some 4 million targets. probekit writes files of
 * at most a few MB; the cap keeps a file that unzips without end (a gzip bomb) from filling the memory.
 */
export const MAX_TARGET_FILE_BYTES = 256 * 1024 * 1024;

/** A Prometheus label name. */
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** The files to read: `*.json`, `*.json.gz` in the folder and in its sub-folders one level down, dotted names skipped. */
async function targetFilePaths(dir: string): Promise<string[]> {
  const found: string[] = [];
  const visible = (name: string): boolean => !name.startsWith('.');
  for (const name of (await readdir(dir)).filter(visible).sort()) {
    const path = join(dir, name);
    // stat, not the entry's type: a ConfigMap's files are symbolic links into its `..data` folder.
    const stats = await stat(path);
    if (stats.isFile() && TARGET_FILE_PATTERN.test(name)) found.push(path);
    else if (stats.isDirectory()) {
      for (const inner of (await readdir(path)).filter(visible).sort()) {
        if (TARGET_FILE_PATTERN.test(inner) && (await stat(join(path, inner))).isFile()) found.push(join(path, inner));
      }
    }
  }
  return found;
}

const kindOf = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'a mapping' : `a ${typeof value}`);

/**
 * A target file's parsed JSON checked, its groups added to `jobs` in order. Problems name the field as the file
 * writes it (`<job>[0].targets[3]`) and the fix.
 */
export function addTargetFile(content: unknown, jobs: Map<string, TargetGroup[]>, problems: Problem[]): void {
  if (typeof content !== 'object' || content === null || Array.isArray(content)) {
    problems.push({ path: [], message: `must be a mapping of job names to lists of target groups ({ targets: [...], labels: {...} }), not ${kindOf(content)}` });
    return;
  }
  for (const [job, groups] of Object.entries(content as Record<string, unknown>)) {
    if (!Array.isArray(groups)) {
      problems.push({ path: [job], message: `must be a list of target groups ({ targets: [...], labels: {...} }), not ${kindOf(groups)}` });
      continue;
    }
    const kept = jobs.get(job) ?? [];
    groups.forEach((group: unknown, index) => {
      const at = [job, index];
      if (typeof group !== 'object' || group === null || Array.isArray(group)) {
        problems.push({ path: at, message: `must be a target group { targets: [...], labels: {...} }, not ${kindOf(group)}` });
        return;
      }
      const { targets, labels, ...other } = group as Record<string, unknown>;
      for (const field of Object.keys(other)) problems.push({ path: [...at, field], message: 'is not a field of a target group, which has targets and labels; remove it' });
      if (!Array.isArray(targets) || targets.some((target) => typeof target !== 'string')) {
        problems.push({ path: [...at, 'targets'], message: 'must be a list of targets, each a string' });
        return;
      }
      const labelProblems: Problem[] = [];
      if (labels !== undefined && (typeof labels !== 'object' || labels === null || Array.isArray(labels))) {
        labelProblems.push({ path: [...at, 'labels'], message: `must be a mapping of label names to strings, not ${kindOf(labels)}` });
      } else {
        for (const [name, value] of Object.entries((labels ?? {}) as Record<string, unknown>)) {
          if (!LABEL_NAME.test(name)) labelProblems.push({ path: [...at, 'labels', name], message: 'is not a Prometheus label name (letters, digits and _, not first a digit); rename it' });
          else if (typeof value !== 'string') labelProblems.push({ path: [...at, 'labels', name], message: `must be a string, not ${kindOf(value)}; quote it` });
        }
      }
      problems.push(...labelProblems);
      if (labelProblems.length === 0) kept.push({ targets: targets as string[], labels: (labels ?? {}) as Record<string, string> });
    });
    jobs.set(job, kept);
  }
}

const unzip = promisify(gunzip);
const zip = promisify(gzip);

/** The worker's side: read, check and serialize the folder's files, or say they did not change. */
export async function readTargetFiles(dir: string, previousChecksum?: string): Promise<TargetFilesReply> {
  let paths: string[];
  try {
    paths = await targetFilePaths(dir);
  } catch (error) {
    return { kind: 'refused', file: dir, problems: [{ path: [], message: `cannot read the folder of --sd.targets-dir (${readProblem(error)}); name a folder the exporter can read` }] };
  }
  const contents: Buffer[] = [];
  const digest = createHash('sha256');
  for (const path of paths) {
    try {
      const content = await readRegularFile(path, MAX_TARGET_FILE_BYTES);
      contents.push(content);
      digest.update(`${path.slice(dir.length)}\0${content.length}\0`).update(content);
    } catch (error) {
      return { kind: 'refused', file: path, problems: [{ path: [], message: `cannot be read (${readProblem(error)})` }] };
    }
  }
  const checksum = digest.digest('hex');
  if (checksum === previousChecksum) return { kind: 'unchanged' };
  const jobs = new Map<string, TargetGroup[]>();
  for (const [index, path] of paths.entries()) {
    let text: string;
    try {
      text = (path.endsWith('.gz') ? await unzip(contents[index], { maxOutputLength: MAX_TARGET_FILE_BYTES }) : contents[index]).toString('utf8');
    } catch (error) {
      const tooLarge = (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError;
      const message = tooLarge
        ? `unzips to more than ${MAX_TARGET_FILE_BYTES / 1024 / 1024} MiB, the most the exporter reads; split it into smaller files`
        : `is not gzip (${(error as Error).message}); gzip it, or name it .json`;
      return { kind: 'refused', file: path, problems: [{ path: [], message }] };
    }
    contents[index] = Buffer.alloc(0);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return { kind: 'refused', file: path, problems: [{ path: [], message: `is not JSON (${(error as Error).message})` }] };
    }
    const problems: Problem[] = [];
    addTargetFile(parsed, jobs, problems);
    if (problems.length > 0) return { kind: 'refused', file: path, problems: problems.slice(0, 20) };
  }
  const served = [];
  for (const [name, groups] of jobs) {
    const json = JSON.stringify(groups);
    served.push({
      name,
      gzipped: await zip(json),
      etag: `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`,
      targets: groups.reduce((sum, group) => sum + group.targets.length, 0),
      groups: groups.length,
    });
    jobs.set(name, []);
  }
  return { kind: 'loaded', checksum, files: paths.length, jobs: served };
}

if (!isMainThread && parentPort && (workerData as Partial<TargetFilesInput> | null)?.role === TARGET_FILES_ROLE) {
  const port = parentPort;
  const { dir, previousChecksum } = workerData as TargetFilesInput;
  readTargetFiles(dir, previousChecksum).then(
    (reply) => port.postMessage(reply, reply.kind === 'loaded' ? reply.jobs.map((job) => job.gzipped.buffer as ArrayBuffer) : []),
    (error: unknown) => port.postMessage({ kind: 'failed', message: String((error as Error).stack ?? error) } satisfies TargetFilesReply),
  );
}
