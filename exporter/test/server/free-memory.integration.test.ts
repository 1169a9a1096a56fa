/**
 * Freed memory goes back to the kernel: when (after a load has settled, and every minute while serving), and
 * that the call through the addon really shrinks a process whose C heap holds freed chunks.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Logger } from '../../src/log';
import { Exporter } from '../../src/server/exporter-server';
import { EVERY_MS, FreeMemoryRelease, SETTLED_AFTER_MS } from '../../src/server/free-memory';

describe('FreeMemoryRelease', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('releases once things settled after a load; a second load before then moves it later', () => {
    const release = jest.fn(() => true);
    const freeMemory = new FreeMemoryRelease(release);
    freeMemory.afterSettling();
    jest.advanceTimersByTime(SETTLED_AFTER_MS - 1000);
    freeMemory.afterSettling();
    jest.advanceTimersByTime(SETTLED_AFTER_MS - 1);
    expect(release).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(release).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(10 * SETTLED_AFTER_MS);
    expect(release).toHaveBeenCalledTimes(1);
  });

  it('releases every minute once started, and nothing once stopped', () => {
    const release = jest.fn(() => true);
    const freeMemory = new FreeMemoryRelease(release);
    freeMemory.start();
    freeMemory.start();
    jest.advanceTimersByTime(3 * EVERY_MS);
    expect(release).toHaveBeenCalledTimes(3);
    freeMemory.afterSettling();
    freeMemory.stop();
    jest.advanceTimersByTime(3 * EVERY_MS);
    expect(release).toHaveBeenCalledTimes(3);
  });

  it('is what the exporter does after loading its config, refused or not, and every minute while it serves', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probekit-free-memory-'));
    const configFile = join(dir, 'blackbox.yml');
    writeFileSync(configFile, 'modules:\n  tcp:\n    prober: tcp\n');
    const release = jest.fn(() => true);
    const exporter = new Exporter({ configFile, timeoutOffsetSeconds: 0.5, historyLimit: 3, log: new Logger('error', () => undefined), releaseFreeMemory: release });
    await exporter.reload();
    jest.advanceTimersByTime(SETTLED_AFTER_MS);
    expect(release).toHaveBeenCalledTimes(1);
    writeFileSync(configFile, 'modules:\n  tcp:\n    prober: nope\n');
    await expect(exporter.reload()).rejects.toThrow();
    jest.advanceTimersByTime(SETTLED_AFTER_MS);
    expect(release).toHaveBeenCalledTimes(2);
    // Serving, it also releases every minute, and no more once closed.
    await exporter.listen('127.0.0.1', 0);
    try {
      jest.advanceTimersByTime(2 * EVERY_MS);
      expect(release).toHaveBeenCalledTimes(4);
    } finally {
      await exporter.close();
    }
    jest.advanceTimersByTime(2 * EVERY_MS);
    expect(release).toHaveBeenCalledTimes(4);
  });
});

describe('releaseFreeMemory through the addon', () => {
  it('gives the freed chunks of the C heap back: the anonymous RSS falls by most of what was freed', async () => {
    // A child process, to measure a heap of its own: 20,000 buffers of 4 KB (malloc'd outside V8's heap),
    // every 50th kept so that the freed ones are holes below the top of the heap, which glibc keeps.
    const script = `
      const { releaseFreeMemory } = require(${JSON.stringify(resolve(__dirname, '../../src/probers/icmp/socket.ts'))});
      const anonMiB = () => Number(/RssAnon:\\s+(\\d+)/.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
      let all = [];
      const kept = [];
      for (let i = 0; i < 20000; i++) { const buffer = Buffer.allocUnsafeSlow(4000); all.push(buffer); if (i % 50 === 0) kept.push(buffer); }
      all = undefined;
      globalThis.gc(); globalThis.gc();
      const freed = anonMiB();
      const released = releaseFreeMemory();
      process.stdout.write(JSON.stringify({ freed, released, after: anonMiB(), kept: kept.length }));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--conditions=@probekit/source', '--import', 'tsx', '-e', script], { cwd: resolve(__dirname, '../..') });
    const { freed, released, after } = JSON.parse(stdout) as { freed: number; released: boolean; after: number };
    expect(released).toBe(true);
    // About 78 MiB were freed; at least 60 of them must leave the process.
    expect(freed - after).toBeGreaterThan(60);
  });
});
