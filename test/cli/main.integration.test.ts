/**
 * `probekit` as a program (its unit tests are main.test.ts): a quiet end when the reader of its output has gone.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { FROM_SOURCE } from '../../exporter/loopback/from-source';

describe('as a program, when the reader of its output has gone (probekit ... | head -1)', () => {
  const MAIN = join(__dirname, '..', '..', 'src', 'cli', 'main.ts');

  /** Runs probekit from source with the reading end of `closed` shut before the program starts; resolves when it exits. */
  async function withReaderGone(args: readonly string[], closed: 'stdout' | 'stderr') {
    const child = spawn(process.execPath, [...FROM_SOURCE, MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    child[closed].destroy();
    let output = '';
    child[closed === 'stdout' ? 'stderr' : 'stdout'].on('data', (chunk: Buffer) => (output += chunk.toString()));
    const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
    return { code, signal, output };
  }

  it.each([[['--help']], [['assistant', 'list']], [['assistant', 'run', '--help']], [['synth', '--help']], [['search-engine', 'check', '--help']]])(
    '%j: stops with the status the shell reports for SIGPIPE (141), saying nothing',
    async (args) => {
      expect(await withReaderGone(args, 'stdout')).toEqual({ code: 141, signal: null, output: '' });
    },
  );

  it('stderr gone as well: a usage error that cannot be said ends the same way', async () => {
    expect(await withReaderGone(['deploy'], 'stderr')).toEqual({ code: 141, signal: null, output: '' });
  });

  it('output that fails otherwise (a full disk: /dev/full) is said on stderr, exit 1', async () => {
    const full = openSync('/dev/full', 'w');
    const child = spawn(process.execPath, [...FROM_SOURCE, MAIN, '--help'], { stdio: ['ignore', full, 'pipe'] });
    closeSync(full);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect({ code, stderr }).toEqual({ code: 1, stderr: 'error: writing the output failed: ENOSPC: no space left on device, write\n' });
  });
});
