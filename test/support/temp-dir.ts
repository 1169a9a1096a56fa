/** A fresh temporary directory for each test of the file or describe block that calls this, removed after it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Registers the set-up and clean-up; the returned function gives the current test's directory. */
export function tempDirPerTest(prefix: string): () => string {
  let dir: string | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterEach(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (dir === undefined) throw new Error('tempDirPerTest: the directory exists only while a test runs');
    return dir;
  };
}
