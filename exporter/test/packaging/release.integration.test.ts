/**
 * `npm run package`: one bundle per architecture, each holding the exporter, the ICMP addon compiled for it (its ELF
 * machine checked), the probekit command, the unit, the installer, a README, the license and the sums of them all
 * (and the release's sums of the tarballs), which sha256sum itself checks. Each bundle is run as
 * it is unpacked: the amd64 one on this machine, the arm64 one under qemu-user with an arm64 Node, and both answer
 * probe_success 1 for an icmp and an http probe of 127.0.0.1. Under emulation both ICMP paths work: qemu-user
 * passes the socket calls of a raw socket (root, CAP_NET_RAW) and of a ping socket (net.ipv4.ping_group_range)
 * through to this kernel, so both are tested.
 *
 * @ci-seconds 45
 */
import { chmodSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { freePort } from '../../loopback/reference-exporter';
import { metricValue, parseMetrics } from '../../loopback/metrics-text';
import {
  ARCHES,
  buildReleases,
  ELF_MACHINE,
  elfMachine,
  eventually,
  fetchInNamespace,
  nodeFor,
  QEMU_AARCH64,
  releaseToolsPresent,
  rootHere,
  run,
  start,
  unpack,
  type Arch,
  type Process,
} from '../support/release';

const CONFIG = 'modules:\n  icmp:\n    prober: icmp\n    icmp:\n      preferred_ip_protocol: ip4\n  http_2xx:\n    prober: http\n';
/** A uid and gid no account has: the exporter as an unprivileged process. */
const NOBODY_ELSE = 64123;

(releaseToolsPresent() ? describe : describe.skip)('release bundles', () => {
  let work: string;
  let tarballs: Record<Arch, string>;
  const folders: Partial<Record<Arch, string>> = {};

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'probekit-release-test-'));
    // Readable by the unprivileged user that runs a bundle below, as a machine's /opt is.
    chmodSync(work, 0o755);
    tarballs = await buildReleases(join(work, 'out'));
    for (const arch of ARCHES) folders[arch] = await unpack(tarballs[arch], join(work, arch));
    writeFileSync(join(work, 'blackbox.yml'), CONFIG);
  }, 120_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it.each(ARCHES)('the %s bundle holds what the installer needs, and nothing else', async (arch) => {
    const { version } = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { version: string };
    expect(tarballs[arch].endsWith(`/probekit-exporter-${version}-linux-${arch}.tar.gz`)).toBe(true);
    const { stdout } = await run('tar', ['-tvzf', tarballs[arch]]);
    const entries = stdout
      .trim()
      .split('\n')
      .map((line) => {
        const fields = line.split(/\s+/);
        return `${fields[0]} ${fields[1]} ${fields[5]}`;
      });
    const folder = `probekit-exporter-${version}-linux-${arch}`;
    expect(entries.sort()).toEqual(
      [
        `drwxr-xr-x 0/0 ${folder}/`,
        `-rw-r--r-- 0/0 ${folder}/LICENSE`,
        `-rw-r--r-- 0/0 ${folder}/README.md`,
        `-rw-r--r-- 0/0 ${folder}/icmp_socket.node`,
        `-rwxr-xr-x 0/0 ${folder}/install.sh`,
        `-rwxr-xr-x 0/0 ${folder}/probekit-exporter.js`,
        `-rw-r--r-- 0/0 ${folder}/probekit-exporter.service`,
        `-rwxr-xr-x 0/0 ${folder}/probekit.js`,
        `-rw-r--r-- 0/0 ${folder}/SHA256SUMS`,
      ].sort(),
    );
    // sha256sum itself checks every file of the bundle against its sums, and the tarball against the release's.
    const { stdout: checked } = await run('sha256sum', ['--check', '--strict', 'SHA256SUMS'], { cwd: folders[arch]! });
    expect(checked.trim().split('\n').sort()).toEqual(
      ['LICENSE', 'README.md', 'icmp_socket.node', 'install.sh', 'probekit-exporter.js', 'probekit-exporter.service', 'probekit.js'].map((file) => `${file}: OK`),
    );
    const { stdout: release } = await run('sha256sum', ['--check', '--strict', 'SHA256SUMS'], { cwd: dirname(tarballs[arch]) });
    expect(release.split('\n')).toContain(`${basename(tarballs[arch])}: OK`);
    expect(readFileSync(join(folders[arch]!, 'LICENSE'), 'utf8')).toContain('Apache License');
    const unit = readFileSync(join(folders[arch]!, 'probekit-exporter.service'), 'utf8');
    expect(unit).toContain('\nExecStart=/usr/bin/node /opt/probekit/exporter/probekit-exporter.js --config.file=/etc/probekit/exporters/blackbox/config.yaml ');
    expect(unit).toContain('\nAmbientCapabilities=CAP_NET_RAW\n');
  });

  it.each(ARCHES)('the %s addon is compiled for that architecture (its ELF machine)', (arch) => {
    const machines = { 62: 'x86-64', 183: 'AArch64' } as Record<number, string>;
    expect(machines[elfMachine(join(folders[arch]!, 'icmp_socket.node'))]).toBe(arch === 'amd64' ? 'x86-64' : 'AArch64');
    expect(elfMachine(join(folders[arch]!, 'icmp_socket.node'))).toBe(ELF_MACHINE[arch]);
  });

  it('the same sources give the same bundles, byte for byte', async () => {
    const again = await buildReleases(join(work, 'again'));
    for (const arch of ARCHES) expect(readFileSync(again[arch]).equals(readFileSync(tarballs[arch]))).toBe(true);
  }, 120_000);

  async function probe(fetchText: (url: string) => Promise<string | undefined>, base: string, module: string, target: string): Promise<{ success?: number; log: string }> {
    const text = await eventually(
      () => fetchText(`${base}/probe?module=${module}&target=${encodeURIComponent(target)}&debug=true`),
      60_000,
      () => `${module} ${target}`,
    );
    return { success: metricValue(parseMetrics(text.slice(text.indexOf('Metrics that would have been returned'))), 'probe_success'), log: text };
  }

  describe.each(ARCHES)('the %s bundle, run as unpacked', (arch) => {
    let exporter: Process;
    let base: string;

    beforeAll(async () => {
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      exporter = start([...nodeFor(arch), join(folders[arch]!, 'probekit-exporter.js'), `--config.file=${join(work, 'blackbox.yml')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=debug']);
      await eventually(
        () => fetch(`${base}/-/healthy`).then((response) => (response.ok ? true : undefined)),
        60_000,
        () => exporter.output(),
      );
    }, 90_000);
    afterAll(() => exporter?.stop());

    it('loads its ICMP addon from beside the bundle, and answers icmp and http probes of 127.0.0.1', async () => {
      const fetchText = (url: string) => fetch(url).then((response) => response.text());
      expect(exporter.output()).not.toContain('ICMP addon');
      // The arm64 bundle really runs emulated: the process is qemu's.
      expect(readlinkSync(`/proc/${exporter.child.pid}/exe`)).toBe(arch === 'amd64' ? process.execPath : QEMU_AARCH64);
      const icmp = await probe(fetchText, base, 'icmp', '127.0.0.1');
      expect(icmp).toMatchObject({ success: 1 });
      // Root here: the ping socket is refused (ping_group_range is 1 0 by default), the raw socket opens.
      expect(icmp.log).toContain('raw=true');
      expect(await probe(fetchText, base, 'http_2xx', `${base}/-/healthy`)).toMatchObject({ success: 1 });
    }, 90_000);
  });

  (rootHere() ? describe.each(ARCHES) : describe.skip.each(ARCHES))('the %s bundle as an unprivileged user, with ping sockets allowed', (arch) => {
    it('answers an icmp probe through a ping socket, with no capability', async () => {
      // A network namespace of its own, where the test may allow ping sockets to every group.
      const script = [
        'set -e',
        'ip link set lo up',
        'sysctl -qw net.ipv4.ping_group_range="0 2147483647"',
        `exec setpriv --reuid=${NOBODY_ELSE} --regid=${NOBODY_ELSE} --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs -- "$@"`,
      ].join('\n');
      const command = [...nodeFor(arch), join(folders[arch]!, 'probekit-exporter.js'), `--config.file=${join(work, 'blackbox.yml')}`, '--web.listen-address=127.0.0.1:9115', '--log.level=debug'];
      for (const folder of [work, folders[arch]!]) expect(statSync(folder).mode & 0o005).toBe(0o005);
      const exporter = start(['unshare', '--net', '--', 'sh', '-c', script, 'sh', ...command]);
      try {
        const fetchText = (url: string) => fetchInNamespace(exporter.child.pid!, url);
        const icmp = await probe(fetchText, 'http://127.0.0.1:9115', 'icmp', '127.0.0.1');
        expect(icmp).toMatchObject({ success: 1 });
        expect(icmp.log).toContain('raw=false');
      } finally {
        await exporter.stop();
      }
    }, 90_000);
  });
});
