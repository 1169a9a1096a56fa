/** --probe.workers=auto: the CPUs the process may use, its cgroup's quota included, from cgroup files the test writes. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseFlags } from '../../src/main';
import { usableCpus } from '../../src/server/cpu-budget';
import { tempDirPerTest } from '../../../test/support/temp-dir';

const tempDir = tempDirPerTest('probekit-cgroup-');

function cgroupRoot(files: Record<string, string>): string {
  const root = tempDir();
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

describe('usable CPUs', () => {
  it.each([
    ['a v2 quota of half a CPU rounds up to one', { 'cpu.max': '50000 100000\n' }, '0::/\n', 8, 1],
    ['a v2 quota of 2.5 CPUs gives three', { 'cpu.max': '250000 100000\n' }, '0::/\n', 8, 3],
    ['no v2 quota leaves the CPUs it may run on', { 'cpu.max': 'max 100000\n' }, '0::/\n', 6, 6],
    ['a quota above the CPUs it may run on gives those', { 'cpu.max': '800000 100000\n' }, '0::/\n', 2, 2],
    ["the process's own v2 cgroup, when the root is the host's", { 'kubepods/pod1/cpu.max': '200000 100000\n' }, '0::/kubepods/pod1\n', 16, 2],
    ['a v1 quota', { 'cpu,cpuacct/cpu.cfs_quota_us': '150000\n', 'cpu,cpuacct/cpu.cfs_period_us': '100000\n' }, '4:cpu,cpuacct:/\n', 8, 2],
    ['a v1 cgroup without a quota (-1)', { 'cpu,cpuacct/cpu.cfs_quota_us': '-1\n', 'cpu,cpuacct/cpu.cfs_period_us': '100000\n' }, '4:cpu,cpuacct:/\n', 4, 4],
    ['no cgroup files at all', {}, '', 3, 3],
    ['one CPU to run on and no quota: probes stay in the serving thread', { 'cpu.max': 'max 100000\n' }, '0::/\n', 1, 1],
    ['a v2 quota of 1.5 CPUs on a 2-CPU node gives two', { 'cpu.max': '150000 100000\n' }, '0::/\n', 2, 2],
  ])('%s', (_, files, selfCgroup, parallelism, expected) => {
    expect(usableCpus({ root: cgroupRoot(files), selfCgroup, parallelism })).toBe(expected);
  });
});

describe('--probe.workers', () => {
  it('is auto by default, a whole number or auto, and refuses anything else with the fix', () => {
    expect(parseFlags([]).probeWorkers).toBe('auto');
    expect(parseFlags(['--probe.workers=4']).probeWorkers).toBe(4);
    expect(parseFlags(['--probe.workers', 'auto']).probeWorkers).toBe('auto');
    for (const wrong of ['0', '-1', '1.5', 'all']) expect(() => parseFlags([`--probe.workers=${wrong}`])).toThrow(`--probe.workers must be a whole number of at least 1 or auto, not ${wrong}`);
  });
});
