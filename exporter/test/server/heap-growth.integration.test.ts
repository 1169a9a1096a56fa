/**
 * The exporter bounds how far V8's old generation grows between full collections, and leaves it alone when
 * node was started with a growth of the user's choosing. The effect is measured for real, in child processes
 * that allocate as a busy exporter does: a steady live heap, and many short-lived objects that live long enough
 * to be promoted out of the young generation before they die.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { FROM_SOURCE } from '../../loopback/from-source';
import { freePort } from '../../loopback/reference-exporter';
import { boundHeapGrowth, chosenByNodeArguments, HEAP_GROWING_PERCENT } from '../../src/server/heap-growth';
import { startExporter as start, stopExporter as stop, waitFor } from '../support/exporter-process';

describe('chosenByNodeArguments', () => {
  it.each([
    [['--heap-growing-percent=0'], true],
    [['--heap_growing_percent=25'], true],
    [['--import', 'tsx', '--heap-growing-percent', '40'], true],
    [['--max-old-space-size=256', '--conditions=@probekit/source'], false],
    [['--heap-growing-percentage=5'], false],
    [[], false],
  ])('%j: %s', (nodeArguments, chosen) => {
    expect(chosenByNodeArguments(nodeArguments)).toBe(chosen);
  });

  it('does not set the flag when node was given one', () => {
    expect(boundHeapGrowth(['--heap-growing-percent=0'])).toBe(false);
  });
});

interface Outcome {
  readonly set: boolean | null;
  readonly maxOldSpaceMiB: number;
}

/**
 * A child that keeps ~10 MB live and makes 30,000 "probes" of a hundred small objects each, 1,000 of them
 * alive at a time; it reports the largest old space it saw. `bound` says whether it calls boundHeapGrowth.
 */
async function allocateLikeAnExporter(bound: boolean, nodeArguments: readonly string[] = []): Promise<Outcome> {
  const script = `
    const v8 = require('node:v8');
    const set = ${bound} ? require(${JSON.stringify(resolve(__dirname, '../../src/server/heap-growth.ts'))}).boundHeapGrowth() : null;
    const live = [];
    for (let i = 0; i < 100; i++) live.push(new Array(12500).fill(i));
    const inFlight = [];
    let maxOld = 0;
    for (let i = 0; i < 30000; i++) {
      const probe = [];
      for (let j = 0; j < 100; j++) probe.push({ j, s: 'p' + i + '-' + j, b: [i, j, i + j] });
      inFlight.push(probe);
      if (inFlight.length > 1000) inFlight.shift();
      if (i % 100 === 0) maxOld = Math.max(maxOld, v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space').space_size);
    }
    process.stdout.write(JSON.stringify({ set, maxOldSpaceMiB: maxOld / 1048576, live: live.length }));`;
  const { stdout } = await promisify(execFile)(process.execPath, [...nodeArguments, ...FROM_SOURCE, '-e', script], { cwd: resolve(__dirname, '../..') });
  return JSON.parse(stdout) as Outcome;
}

describe('boundHeapGrowth in a process that allocates as a busy exporter does', () => {
  it('keeps the old generation far smaller than V8 left to itself, and yields to node --heap-growing-percent', async () => {
    const [bounded, unbounded, chosen] = await Promise.all([allocateLikeAnExporter(true), allocateLikeAnExporter(false), allocateLikeAnExporter(true, ['--heap-growing-percent=0'])]);
    expect(bounded.set).toBe(true);
    expect(chosen.set).toBe(false);
    // Measured here: about 56 MiB bounded, 104 to 110 MiB left to V8 (and with node's own flag).
    expect(bounded.maxOldSpaceMiB).toBeLessThan(0.75 * unbounded.maxOldSpaceMiB);
    expect(chosen.maxOldSpaceMiB).toBeGreaterThan(bounded.maxOldSpaceMiB / 0.75);
  }, 60_000);
});

describe('the exporter', () => {
  it('bounds the growth when it starts to serve, and says so in its debug log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probekit-heap-growth-'));
    const configFile = join(dir, 'blackbox.yml');
    writeFileSync(configFile, 'modules:\n  tcp:\n    prober: tcp\n');
    const port = await freePort();
    const started = start([`--config.file=${configFile}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=debug']);
    try {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/-/healthy`)).ok, 'the exporter');
      expect(started.stderr()).toContain(`msg="Old generation grows at most this far past the live heap between full collections" percent=${HEAP_GROWING_PERCENT}`);
    } finally {
      await stop(started);
    }
  });
});
