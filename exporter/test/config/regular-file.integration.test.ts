/**
 * The reader of every file a config names: a regular file is read whole, anything else is refused by what it
 * is before a byte is read (a FIFO without a writer, /dev/zero behind a symlink, a directory), and a file
 * past the cap is refused without being read.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_FILE_BYTES, readProblem, readRegularFile, readRegularFileSync } from '../../src/config/regular-file';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'probekit-regular-file-'));
  writeFileSync(join(dir, 'plain'), 'modules: {}\n');
  symlinkSync(join(dir, 'plain'), join(dir, 'link-to-plain'));
  symlinkSync('/dev/zero', join(dir, 'zero'));
  execFileSync('mkfifo', [join(dir, 'fifo')]);
  mkdirSync(join(dir, 'directory'));
  writeFileSync(join(dir, 'huge'), '');
  // Sparse: its size is past the cap without the disk holding it.
  truncateSync(join(dir, 'huge'), MAX_FILE_BYTES + 1);
  writeFileSync(join(dir, 'small-cap'), 'x'.repeat(11));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const readers = [
  ['async', (path: string, limit?: number) => readRegularFile(path, limit)],
  ['sync', async (path: string, limit?: number) => Promise.resolve().then(() => readRegularFileSync(path, limit))],
] as const;

describe.each(readers)('reading a file a config names (%s)', (_kind, read) => {
  const problem = (path: string, limit?: number): Promise<string> =>
    read(join(dir, path), limit).then(
      () => 'read',
      (error: unknown) => readProblem(error),
    );

  it('reads a regular file, and one behind a symlink', async () => {
    expect((await read(join(dir, 'plain'))).toString()).toBe('modules: {}\n');
    expect((await read(join(dir, 'link-to-plain'))).toString()).toBe('modules: {}\n');
  });

  it('refuses what is not a regular file by what it is, and names the fix', async () => {
    expect(await problem('zero')).toBe('it is a character device, not a regular file; name a regular file (a symlink to one is fine)');
    expect(await problem('fifo')).toBe('it is a FIFO (named pipe), not a regular file; name a regular file (a symlink to one is fine)');
    expect(await problem('directory')).toBe('it is a directory, not a regular file; name a regular file (a symlink to one is fine)');
  });

  it('refuses a file larger than the cap, and keeps the system code for the rest', async () => {
    expect(await problem('huge')).toBe('it is larger than 64 MiB, the most the exporter reads; name a smaller file');
    expect(await problem('small-cap', 10)).toMatch(/^it is larger than /);
    expect((await read(join(dir, 'small-cap'), 11)).toString()).toBe('x'.repeat(11));
    expect(await problem('missing')).toBe('ENOENT');
  });
});
