/**
 * install.sh from the release bundles, into a temporary root, for amd64 and arm64. The installed exporter is run
 * exactly as the unit's ExecStart says (for arm64, /usr/bin/node is the arm64 Node under qemu-user), from the
 * installed paths (the staged /etc and /opt laid over the machine's in a mount namespace) and on port 9115 (in a
 * network namespace of its own), as an unprivileged user with only the capability the unit grants: setpriv stands in
 * for systemd's User= and AmbientCapabilities=, and a uid no account has for the service user (the test creates no
 * account on this machine). It answers http, tcp and icmp probes of loopback; Debian's Prometheus, reading the
 * agent file as written, scrapes every job. Then: a second install changes no byte, a job removed from the spec
 * leaves the agent file while the hand-written one stays, a broken agent file is refused untouched, and uninstall
 * leaves the root as it was, backups aside. What cannot run here: systemd itself (the unit's sandboxing, the
 * restarts and statuses), which is not PID 1 on this machine; the unit is checked by systemd-analyze instead.
 *
 * @ci-seconds 120
 */
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { metricValue, parseMetrics } from '../../loopback/metrics-text';
import { hostileText, samples } from '../../../test/support/hostile-text';
import { requireBinary } from '../../../test/support/integration';
import { EXPORTER_NODE_FLAGS } from '../../src/contract/endpoints';
import {
  ARCHES,
  buildReleases,
  eventually,
  fetchInNamespace,
  inNamespace,
  nodeFor,
  releaseToolsPresent,
  rootHere,
  run,
  start,
  startInNamespace,
  unpack,
  type Arch,
  type Process,
} from '../support/release';

const PROMETHEUS = '/usr/bin/prometheus';
/** A uid and gid no account has, standing in for the service user. */
const SERVICE_UID = 64124;
const TOKEN = 'install-test-token-5e1f';
const EXPORTER = 'http://127.0.0.1:9115';
/** An address of the machine that is not loopback (TEST-NET-1), added in the exporter's network namespace. */
const OTHER_ADDRESS = '192.0.2.15';

const job = (name: string, module: string, target: string) => `  - { name: ${name}, module: ${module}, targets: ['${target}'], scrapeInterval: 5s, scrapeTimeout: 5s }\n`;
const SPEC =
  'modules:\n' +
  '  web: { preset: http_2xx }\n' +
  '  tcp: { prober: tcp }\n' +
  '  ping: { prober: icmp, icmp: { preferred_ip_protocol: ip4 } }\n' +
  '  private: { preset: http_2xx_with_header, accessToken: { fromEnv: INSTALL_TEST_TOKEN } }\n' +
  'jobs:\n' +
  job('web', 'web', `${EXPORTER}/-/healthy`) +
  job('tcp', 'tcp', '127.0.0.1:9115') +
  job('ping', 'ping', '127.0.0.1') +
  job('private', 'private', `${EXPORTER}/-/healthy`);
/** The same spec without the `private` job and its module (and so its secret file). */
const SMALLER_SPEC = SPEC.replace(/ {2}private: .*\n/, '').replace(/ {2}- \{ name: private.*\n/, '');
/** The agent file as the machine had it before: the agent's own settings and a job written by hand. */
const HAND_WRITTEN_AGENT_FILE = [
  '# The agent, configured by hand',
  'global:',
  '  scrape_interval: 5s # often, for the test',
  'scrape_configs:',
  "  # the exporter's own metrics, a job written by hand",
  '  - job_name: exporter-metrics',
  '    static_configs:',
  '      - targets: [127.0.0.1:9115]',
  '',
].join('\n');

/** Every path under `root` with its type, mode, owner and content digest. */
function snapshot(root: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const stat = lstatSync(path);
      const digest = stat.isFile() ? createHash('sha256').update(readFileSync(path)).digest('hex') : '';
      entries[relative(root, path)] = `${stat.isDirectory() ? 'd' : 'f'} ${(stat.mode & 0o7777).toString(8)} ${stat.uid}:${stat.gid} ${digest}`;
      if (stat.isDirectory()) walk(path);
    }
  };
  walk(root);
  return entries;
}

const isBackup = (path: string) => /\.probekit-backup-\d{8}T\d{6}\.\d+Z$/.test(path);
const withoutBackups = (entries: Record<string, string>) => Object.fromEntries(Object.entries(entries).filter(([path]) => !isBackup(path)));

const present = releaseToolsPresent() && rootHere() && requireBinary(PROMETHEUS);

(present ? describe : describe.skip)('install.sh from the release bundles', () => {
  let work: string;
  const bundles: Partial<Record<Arch, string>> = {};

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'probekit-install-test-'));
    // Readable by the service user, as a machine's / is.
    chmodSync(work, 0o755);
    const tarballs = await buildReleases(join(work, 'out'));
    for (const arch of ARCHES) bundles[arch] = await unpack(tarballs[arch], join(work, 'bundles'));
    writeFileSync(join(work, 'spec.yaml'), SPEC);
    writeFileSync(join(work, 'smaller-spec.yaml'), SMALLER_SPEC);
  }, 120_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  const install = (arch: Arch, args: readonly string[], installer = join(bundles[arch]!, 'install.sh')) =>
    run('bash', [installer, '--exporter', 'blackbox', ...args], { env: { ...process.env, INSTALL_TEST_TOKEN: TOKEN }, cwd: work });
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );

  describe.each(ARCHES)('%s', (arch) => {
    let root: string;
    let before: Record<string, string>;
    let installed: Record<string, string>;
    const agentFile = () => join(root, 'etc/acme/agent-config.yaml');
    const jobNames = () => (parse(readFileSync(agentFile(), 'utf8')) as { scrape_configs: Array<{ job_name: string }> }).scrape_configs.map((entry) => entry.job_name);

    beforeAll(() => {
      root = join(work, `root-${arch}`);
      mkdirSync(join(root, 'etc/acme'), { recursive: true });
      writeFileSync(agentFile(), HAND_WRITTEN_AGENT_FILE);
      before = snapshot(root);
    });

    it('installs from the spec; the exporter, run as the unit says, answers http, tcp and icmp; Prometheus scrapes every job', async () => {
      const { stdout } = await install(arch, ['--vendor', 'acme', '--spec', 'spec.yaml', '--arch', arch, '--root', root]);
      expect(stdout).toContain(`installed (${arch}) the probekit exporter under ${root}; systemd does not run here, so on the machine, as root, run:`);
      expect(stdout).toContain('\n  systemctl restart acme-agent.service\n');
      // The printed commands give the secret file to the service user; here, to the uid standing in for it.
      const chowns = [...stdout.matchAll(/^ {2}chown probekit-exporter:probekit-exporter (\S+)$/gm)].map(([, path]) => path);
      expect(chowns).toEqual(['/etc/acme/exporters/blackbox/secrets/private.authentication']);
      for (const path of chowns) chownSync(join(root, path), SERVICE_UID, SERVICE_UID);
      expect(readFileSync(join(root, chowns[0]), 'utf8')).toBe(`Bearer ${TOKEN}`);
      expect(readFileSync(join(root, 'etc/acme/exporters/blackbox/config.yaml'), 'utf8')).not.toContain(TOKEN);

      const unit = readFileSync(join(root, 'etc/systemd/system/probekit-exporter.service'), 'utf8');
      const execStart = /^ExecStart=(.*)$/m.exec(unit)![1].split(' ');
      expect(execStart.slice(0, 2)).toEqual(['/usr/bin/node', '/opt/probekit/exporter/probekit-exporter.js']);
      // The spec sets no host.listenAddress: the exporter listens on loopback alone, where the agent's jobs scrape it.
      expect(execStart).toContain('--web.listen-address=127.0.0.1:9115');
      expect(unit).toContain('\nUser=probekit-exporter\n');
      // Its environment, as systemd would set it: Node's flags (one assignment, quoted).
      const environment = [...unit.matchAll(/^Environment="(.*)"$/gm)].map(([, assignment]) => assignment);
      expect(environment).toEqual([`NODE_OPTIONS=${EXPORTER_NODE_FLAGS.join(' ')}`]);
      const capabilities = /^AmbientCapabilities=(.*)$/m
        .exec(unit)![1]
        .split(' ')
        .map((name) => name.replace(/^CAP_/, '').toLowerCase());
      expect(capabilities).toEqual(['net_raw']);
      const caps = ['-all', ...capabilities.map((name) => `+${name}`)].join(',');
      const asTheUnitSays = [
        'setpriv',
        `--reuid=${SERVICE_UID}`,
        `--regid=${SERVICE_UID}`,
        '--clear-groups',
        `--inh-caps=${caps}`,
        `--ambient-caps=${caps}`,
        `--bounding-set=${caps}`,
        '--no-new-privs',
        '--',
      ];
      const exporter = startInNamespace({ '/etc': join(root, 'etc'), '/opt': join(root, 'opt') }, [...asTheUnitSays, 'env', ...environment, ...nodeFor(arch), ...execStart.slice(1)]);
      let prometheus: Process | undefined;
      try {
        const pid = exporter.child.pid!;
        await eventually(
          () => fetchInNamespace(pid, `${EXPORTER}/-/healthy`),
          60_000,
          () => exporter.output(),
        );
        expect(exporter.output()).not.toContain('ICMP addon');
        // Another address of the machine (here one more on the namespace's lo) does not reach it.
        const [ip, ...addAddress] = inNamespace(pid, ['ip', 'addr', 'add', `${OTHER_ADDRESS}/32`, 'dev', 'lo']);
        await run(ip!, addAddress);
        expect(await fetchInNamespace(pid, `http://127.0.0.1:9115/-/healthy`)).toBeDefined();
        expect(await fetchInNamespace(pid, `http://${OTHER_ADDRESS}:9115/-/healthy`)).toBeUndefined();
        for (const [module, target] of [
          ['web', `${EXPORTER}/-/healthy`],
          ['tcp', '127.0.0.1:9115'],
          ['ping', '127.0.0.1'],
          ['private', `${EXPORTER}/-/healthy`],
        ]) {
          const text = await fetchInNamespace(pid, `${EXPORTER}/probe?module=${module}&target=${encodeURIComponent(target)}`);
          expect([module, metricValue(parseMetrics(text ?? ''), 'probe_success')]).toEqual([module, 1]);
        }

        // Debian's Prometheus on the agent file exactly as written, beside the exporter on its loopback.
        const tsdb = join(work, `tsdb-${arch}`);
        prometheus = start(inNamespace(pid, [PROMETHEUS, `--config.file=${agentFile()}`, `--storage.tsdb.path=${tsdb}`, '--web.listen-address=127.0.0.1:9090']));
        const query = async (expression: string) => {
          const body = await fetchInNamespace(pid, `http://127.0.0.1:9090/api/v1/query?query=${encodeURIComponent(expression)}`);
          const results = (JSON.parse(body ?? '{}') as { data?: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } }).data?.result ?? [];
          return Object.fromEntries(results.map((result) => [result.metric.job, result.value[1]]));
        };
        const successes = await eventually(
          async () => {
            const values = await query('probe_success');
            return Object.keys(values).length === 4 ? values : undefined;
          },
          60_000,
          () => prometheus!.output(),
        );
        expect(successes).toEqual({ web: '1', tcp: '1', ping: '1', private: '1' });
        // The hand-written job has its own scrape offset: it may come after the probes' (once seen under qemu).
        const exporterUp = await eventually(
          async () => {
            const values = await query('up{job="exporter-metrics"}');
            return Object.keys(values).length > 0 ? values : undefined;
          },
          60_000,
          () => prometheus!.output(),
        );
        expect(exporterUp).toEqual({ 'exporter-metrics': '1' });
      } finally {
        await prometheus?.stop();
        await exporter.stop();
      }
      installed = snapshot(root);
      // The agent file as it was is kept beside it, the first time it is edited.
      const backups = Object.keys(installed).filter(isBackup);
      expect(backups).toEqual([expect.stringMatching(/^etc\/acme\/agent-config\.yaml\.probekit-backup-/)]);
      expect(readFileSync(join(root, backups[0]), 'utf8')).toBe(HAND_WRITTEN_AGENT_FILE);
    }, 240_000);

    it('a second install leaves every file byte-identical', async () => {
      await install(arch, ['--vendor', 'acme', '--spec', 'spec.yaml', '--arch', arch, '--root', root]);
      expect(snapshot(root)).toEqual(installed);
    }, 60_000);

    it('a job removed from the spec disappears from the agent file, with its secret file; the hand-written job and the comments stay', async () => {
      await install(arch, ['--vendor', 'acme', '--spec', 'smaller-spec.yaml', '--arch', arch, '--root', root]);
      expect(jobNames()).toEqual(['exporter-metrics', 'web', 'tcp', 'ping', 'probekit-exporter']);
      const text = readFileSync(agentFile(), 'utf8');
      expect(text.startsWith(HAND_WRITTEN_AGENT_FILE)).toBe(true);
      expect(existsSync(join(root, 'etc/acme/exporters/blackbox/secrets/private.authentication'))).toBe(false);
      expect(parse(readFileSync(join(root, 'etc/acme/exporters/blackbox/agent-jobs.yaml'), 'utf8'))).toEqual({ jobs: ['web', 'tcp', 'ping', 'probekit-exporter'] });
      // Files the installer wrote and nobody edited since are replaced without a backup.
      expect(Object.keys(snapshot(root)).filter(isBackup)).toHaveLength(1);
    }, 60_000);

    it('an agent file that is not valid YAML is refused, and nothing changes', async () => {
      const valid = readFileSync(agentFile(), 'utf8');
      writeFileSync(agentFile(), `${valid}  - job_name: [unclosed\n`);
      const broken = snapshot(root);
      const result = await failure(install(arch, ['--vendor', 'acme', '--spec', 'spec.yaml', '--arch', arch, '--root', root]));
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`error: ${join(root, 'etc/acme/agent-config.yaml')}: `);
      expect(result.stderr).toContain("fix the file's YAML first");
      expect(result.stderr).toContain('install.sh: the host files could not be rendered (above); nothing was changed');
      expect(snapshot(root)).toEqual(broken);
      writeFileSync(agentFile(), valid);
    }, 60_000);

    it('uninstall (the installed copy of install.sh) leaves the root as it was before the install, backups aside', async () => {
      const { stdout } = await run('bash', [join(root, 'opt/probekit/exporter/install.sh'), '--exporter', 'blackbox', '--uninstall', '--root', root]);
      expect(stdout).toContain('systemctl disable --now probekit-exporter.service');
      expect(withoutBackups(snapshot(root))).toEqual(before);
      expect(readFileSync(agentFile(), 'utf8')).toBe(HAND_WRITTEN_AGENT_FILE);
    }, 60_000);
  });

  describe('on a root where nothing was there before', () => {
    it('--files installs the tree probekit host render wrote, as --spec does, and uninstall leaves nothing', async () => {
      const viaSpec = join(work, 'via-spec');
      const viaFiles = join(work, 'via-files');
      await install('amd64', ['--vendor', 'acme', '--spec', 'spec.yaml', '--root', viaSpec]);
      const tree = join(work, 'tree');
      await run(process.execPath, [join(bundles.amd64!, 'probekit.js'), 'host', 'render', '--spec', 'spec.yaml', '--vendor', 'acme', '--out', tree], {
        cwd: work,
        env: { ...process.env, INSTALL_TEST_TOKEN: TOKEN },
      });
      await install('amd64', ['--files', tree, '--root', viaFiles]);
      // Each install keys its record's secret checksums with a key of its own: the rest is the same, byte for byte.
      const RECORD = /^var\/lib\/probekit-exporter\/(installed|key)$/;
      const unkeyed = (root: string) => Object.fromEntries(Object.entries(snapshot(root)).filter(([path]) => !RECORD.test(path)));
      expect(unkeyed(viaFiles)).toEqual(unkeyed(viaSpec));
      const unsecret = (root: string) => readFileSync(join(root, 'var/lib/probekit-exporter/installed'), 'utf8').replace(/^secret \S+/gm, 'secret');
      expect(unsecret(viaFiles)).toEqual(unsecret(viaSpec));
      await install('amd64', ['--uninstall', '--root', viaFiles]);
      expect(snapshot(viaFiles)).toEqual({});
    }, 60_000);
  });

  describe('a live install, on this machine', () => {
    it('creates the service user, gives it the secret file, prints what systemd would do, and uninstall removes the user', async () => {
      // In a mount namespace whose /etc, /opt and /var are copy-on-write over a tmpfs: what the installer writes there
      // (the user in /etc/passwd included) is gone with the namespace, and the machine is left as it was. A mount that
      // fails stops the script before the installer runs.
      const installer = join(bundles.amd64!, 'install.sh');
      const script = [
        'set -e',
        'layer=$(mktemp -d)',
        'mount -t tmpfs tmpfs "$layer"',
        'for folder in etc opt var; do',
        '  mkdir -p "$layer/$folder/upper" "$layer/$folder/work"',
        '  mount -t overlay overlay -o "lowerdir=/$folder,upperdir=$layer/$folder/upper,workdir=$layer/$folder/work" "/$folder"',
        'done',
        `bash ${installer} --exporter blackbox --vendor acme --spec spec.yaml`,
        'echo "user: $(getent passwd probekit-exporter | cut -d: -f3,7)"',
        'echo "secret: $(stat -c %U:%a /etc/acme/exporters/blackbox/secrets/private.authentication)"',
        'bash /opt/probekit/exporter/install.sh --exporter blackbox --uninstall',
        'echo "after: $(getent passwd probekit-exporter || echo no user) $(ls /etc/acme 2>/dev/null || echo no /etc/acme)"',
      ].join('\n');
      const { stdout } = await run('unshare', ['--mount', '--', 'sh', '-c', script], { cwd: work, env: { ...process.env, INSTALL_TEST_TOKEN: TOKEN } });
      expect(stdout).toContain('installed (amd64) the probekit exporter under /; systemd does not run here, so on the machine, as root, run:\n  systemctl daemon-reload\n');
      expect(stdout).not.toContain('useradd');
      const [uid, shell] = /^user: (\d+):(\S+)$/m.exec(stdout)!.slice(1);
      expect([Number(uid) < 1000, shell]).toEqual([true, '/usr/sbin/nologin']);
      expect(stdout).toContain('\nsecret: probekit-exporter:600\n');
      expect(stdout).toContain('uninstalled the probekit exporter under /;');
      expect(stdout).toContain('\nafter: no user no /etc/acme\n');
      expect(existsSync('/opt/probekit')).toBe(false);
    }, 60_000);
  });

  describe('hostile arguments, roots and trees', () => {
    const secretPath = 'etc/acme/exporters/blackbox/secrets/private.authentication';
    const fresh = (name: string) => {
      const root = join(work, name);
      mkdirSync(join(root, 'etc/acme'), { recursive: true });
      writeFileSync(join(root, 'etc/acme/agent-config.yaml'), HAND_WRITTEN_AGENT_FILE);
      return root;
    };

    it("an --agent-service or --vendor that is not a name is refused before anything is written, and a later install deletes no file of the caller's choice", async () => {
      const root = fresh('hostile-names');
      writeFileSync(join(root, 'victim'), 'kept');
      const injected = 'acme-agent.service\nfile 0000 /victim';
      const services = [injected, 'acme-agent.service; rm -rf /', 'acme agent', '$(id)', ...samples(hostileText(['\n', ';', ' ', '$(id)', '`id`', '"', "'", '|', '&', '/', '\\', '*']), 30)];
      for (const value of services) {
        const result = await failure(install('amd64', ['--vendor', 'acme', '--spec', 'spec.yaml', '--root', root, '--agent-service', value]));
        expect([value, result.code, result.stderr]).toEqual([value, 2, 'error: --agent-service: use a systemd unit name: letters, digits, : _ . @ -, for example acme-agent.service\n']);
      }
      for (const value of ['acme\nfile 0 /victim', 'ac me', '../etc', 'acme;id', 'Acme', '.acme']) {
        const result = await failure(install('amd64', ['--vendor', value, '--spec', 'spec.yaml', '--root', root]));
        expect([value, result.code, result.stderr]).toEqual([value, 2, expect.stringMatching(/^error: --vendor: use 1 to 63 lower-case letters/)]);
      }
      expect(readdirSync(root).sort()).toEqual(['etc', 'victim']);
      // Two installs naming a service, as the attack needed: the record holds what install.sh writes, nothing more.
      await install('amd64', ['--vendor', 'acme', '--spec', 'spec.yaml', '--root', root, '--agent-service', 'acme-agent.service']);
      await install('amd64', ['--vendor', 'acme', '--spec', 'spec.yaml', '--root', root]);
      expect(readFileSync(join(root, 'victim'), 'utf8')).toBe('kept');
    }, 60_000);

    it('a staged root with a symbolic link on the way to what it writes is refused, and nothing is written where the link leads', async () => {
      for (const link of ['etc', 'opt', 'var', 'var/lib', 'etc/acme', 'etc/systemd', 'etc/acme/exporters/blackbox/secrets', 'etc/systemd/system/probekit-exporter.service']) {
        const root = fresh(`linked-${link.replaceAll('/', '-')}`);
        const outside = join(work, `outside-${link.replaceAll('/', '-')}`);
        // What was there (the agent file, for etc and etc/acme) is moved to where the link leads, as an attacker would set it up.
        if (existsSync(join(root, link))) renameSync(join(root, link), outside);
        else mkdirSync(outside);
        mkdirSync(join(root, link, '..'), { recursive: true });
        symlinkSync(outside, join(root, link));
        const leading = snapshot(outside);
        const result = await failure(install('amd64', ['--vendor', 'acme', '--spec', 'spec.yaml', '--root', root]));
        expect([link, result.code, result.stderr]).toEqual([
          link,
          1,
          `install.sh: ${join(root, link)} is a symbolic link: a staged install follows none (it could lead out of ${root}); replace it with the folder or file itself\n`,
        ]);
        expect([link, snapshot(outside)]).toEqual([link, leading]);
      }
    }, 120_000);

    it("the record and its key are root's alone, and no file others may read holds the secret file's SHA-256", async () => {
      const root = fresh('record');
      await install('amd64', ['--vendor', 'acme', '--spec', 'spec.yaml', '--root', root]);
      const digest = createHash('sha256')
        .update(readFileSync(join(root, secretPath)))
        .digest('hex');
      expect((lstatSync(join(root, 'var/lib/probekit-exporter/installed')).mode & 0o777).toString(8)).toBe('600');
      expect((lstatSync(join(root, 'var/lib/probekit-exporter/key')).mode & 0o777).toString(8)).toBe('600');
      const record = readFileSync(join(root, 'var/lib/probekit-exporter/installed'), 'utf8');
      expect(record).toMatch(new RegExp(`^secret [0-9a-f]{64} /${secretPath}$`, 'm'));
      expect(record).not.toContain(digest);
      const readable = Object.entries(snapshot(root)).filter(([, entry]) => entry.startsWith('f ') && (parseInt(entry.split(' ')[1], 8) & 0o004) !== 0);
      expect(readable.length).toBeGreaterThan(3);
      for (const [path] of readable) expect([path, readFileSync(join(root, path), 'utf8').includes(digest)]).toEqual([path, false]);
      // A hand edit of the secret file is still told from the installed one: kept as a backup when replaced.
      writeFileSync(join(root, secretPath), 'Bearer edited');
      await install('amd64', ['--vendor', 'acme', '--spec', 'spec.yaml', '--root', root]);
      expect(Object.keys(snapshot(root)).filter((path) => isBackup(path) && path.startsWith(secretPath))).toHaveLength(1);
    }, 60_000);

    it('a --files tree holding a symbolic link, or a record naming a path install.sh never writes, is refused', async () => {
      const tree = join(work, 'linked-tree');
      await run(process.execPath, [join(bundles.amd64!, 'probekit.js'), 'host', 'render', '--spec', 'spec.yaml', '--vendor', 'acme', '--out', tree], {
        cwd: work,
        env: { ...process.env, INSTALL_TEST_TOKEN: TOKEN },
      });
      symlinkSync('/etc/shadow', join(tree, 'etc/acme/shadow'));
      const root = fresh('linked-tree-root');
      const result = await failure(install('amd64', ['--files', tree, '--root', root]));
      expect(result).toEqual({ code: 1, stderr: `install.sh: --files ${tree}: ${tree}/etc/acme/shadow is not a file or a folder; the tree holds only what 'probekit host render' writes\n` });
      await install('amd64', ['--vendor', 'acme', '--spec', 'spec.yaml', '--root', root]);
      const record = join(root, 'var/lib/probekit-exporter/installed');
      writeFileSync(record, `${readFileSync(record, 'utf8')}file 0000 /../../victim\n`);
      const edited = await failure(install('amd64', ['--vendor', 'acme', '--spec', 'spec.yaml', '--root', root]));
      expect(edited).toEqual({ code: 1, stderr: `install.sh: ${record}: '/../../victim' is not what install.sh writes; restore the file or remove the line\n` });
    }, 60_000);
  });

  describe("the bundle's sums", () => {
    it('a bundle whose file differs from its SHA256SUMS, or that has none, is refused before any of it runs, and nothing is written', async () => {
      const root = join(work, 'tampered-root');
      for (const [part, change] of [
        ['probekit.js', (text: string) => `${text}\n// changed\n`],
        ['probekit-exporter.js', (text: string) => text.replace('blackbox', 'blackb0x')],
        ['install.sh', (text: string) => text.replace('set -euo pipefail', 'set -euo pipefail; : changed')],
        ['icmp_socket.node', (text: string) => `${text}x`],
      ] as const) {
        const tampered = join(work, `tampered-${part}`);
        await run('cp', ['-a', bundles.amd64!, tampered]);
        writeFileSync(join(tampered, part), change(readFileSync(join(tampered, part), 'latin1')), 'latin1');
        const result = await failure(install('amd64', ['--vendor', 'acme', '--spec', 'spec.yaml', '--root', root], join(tampered, 'install.sh')));
        expect([part, result]).toEqual([
          part,
          {
            code: 1,
            stderr: `install.sh: ${tampered}/${part} is not the file the bundle's SHA256SUMS lists: it changed since the release; unpack the release again (docs/host.md, "Check the bundle")\n`,
          },
        ]);
      }
      const unsummed = join(work, 'unsummed');
      await run('cp', ['-a', bundles.amd64!, unsummed]);
      rmSync(join(unsummed, 'SHA256SUMS'));
      const result = await failure(install('amd64', ['--vendor', 'acme', '--spec', 'spec.yaml', '--root', root], join(unsummed, 'install.sh')));
      expect(result).toEqual({ code: 1, stderr: expect.stringMatching(/^install\.sh: \S+\/unsummed has no SHA256SUMS: run the install\.sh of a release bundle/) });
      expect(existsSync(root)).toBe(false);
      // The installed copy carries the sums too: it uninstalls.
      await install('amd64', ['--vendor', 'acme', '--spec', 'spec.yaml', '--root', root]);
      await install('amd64', ['--uninstall', '--root', root], join(root, 'opt/probekit/exporter/install.sh'));
      expect(snapshot(root)).toEqual({});
    }, 60_000);
  });

  describe('arguments', () => {
    it("refuses a bundle of another architecture than the machine's (live) or --arch (staged), naming both", async () => {
      const root = join(work, 'wrong-arch');
      const staged = await failure(install('amd64', ['--spec', 'spec.yaml', '--arch', 'arm64', '--root', root]));
      expect(staged).toEqual({ code: 1, stderr: 'install.sh: this bundle is for amd64, but --arch is arm64: use the linux-arm64 bundle, or --arch amd64\n' });
      const live = await failure(install('arm64', ['--spec', 'spec.yaml']));
      expect(live).toEqual({ code: 1, stderr: 'install.sh: this bundle is for arm64, but this machine is amd64: use the linux-amd64 bundle\n' });
      expect(readdirSync(root)).toEqual([]);
    });
  });
});

describe('install.sh, its command line (bash, before it looks for a bundle)', () => {
  const script = join(__dirname, '..', '..', 'packaging', 'install.sh');
  const call = (args: readonly string[], cwd = tmpdir()) =>
    run('bash', [script, ...args], { cwd }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );

  it('--help and -h print every flag with its default on stdout and exit 0', async () => {
    const help = await call(['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(await call(['-h'])).toEqual(help);
    expect(await call(['--spec', 'spec.yaml', '--help'])).toEqual(help);
    const lines = help.stdout.split('\n');
    const usage = lines.filter((line) => /^(usage: | {7})install\.sh /.test(line)).join(' ');
    const flags = [...new Set([...usage.matchAll(/--[a-z][a-z-]*/g)].map(([flag]) => flag))];
    expect(flags).toEqual(['--exporter', '--spec', '--vendor', '--arch', '--root', '--no-start', '--agent-service', '--files', '--uninstall', '--help']);
    for (const flag of flags) expect([flag, lines.some((line) => new RegExp(`^ {2}(-h, )?${flag}( \\S+)? +\\S`).test(line))]).toEqual([flag, true]);
    for (const fallback of ['(default: probekit)', "(default: this machine's)", '(default: /, a', '(default: NAME-agent.service, NAME from --vendor)']) expect(help.stdout).toContain(fallback);
    expect(help.stdout).toContain('127.0.0.1:9115');
    expect(help.stdout).toMatch(/\nexit codes: 0 .*;\s2 a mistake in the command line\n$/s);
  });

  it('without arguments prints the usage on stderr and exits 2', async () => {
    const help = await call(['--help']);
    expect(await call([])).toEqual({ code: 2, stdout: '', stderr: help.stdout });
  });

  it('a required flag missing, or any other mistake in the command line: one error line, exit 2, nothing changed', async () => {
    const root = mkdtempSync(join(tmpdir(), 'probekit-install-args-'));
    writeFileSync(join(root, 'spec.yaml'), SPEC);
    const staged = join(root, 'staged');
    const cases: Array<[string[], string]> = [
      [['--spec', 'spec.yaml', '--root', staged], 'error: --exporter is required: give --exporter blackbox'],
      [['--exporter', 'blackbox', '--root', staged], "error: --spec is required: the spec to install from (or --files DIR, a tree from 'probekit host render')"],
      [['--exporter', 'node', '--spec', 'spec.yaml'], "error: --exporter: only blackbox is available (got 'node'); give --exporter blackbox"],
      [['--exporter', 'blackbox', '--root'], 'error: --root needs a value (--root VALUE; install.sh --help lists them)'],
      [['--exporter', 'blackbox', '--spec', 'spec.yaml', '--root', '--no-start'], 'error: --root needs a value'],
      [['--exporter', 'blackbox', '--spec'], 'error: --spec needs a value'],
      [['--exporter', 'blackbox', '--bogus'], "error: unknown argument '--bogus'; install.sh --help lists the flags"],
      [['--exporter', 'blackbox', '--spec', 'nope.yaml', '--root', staged], `error: --spec: no such file; check the path (a relative one is read from ${root})`],
      [['--exporter', 'blackbox', '--spec', 'spec.yaml', '--files', root, '--root', staged], 'error: give --spec FILE or --files DIR, not both'],
      [['--exporter', 'blackbox', '--spec', 'spec.yaml', '--arch', 's390x', '--root', staged], "error: --arch: use amd64 or arm64 (got 's390x')"],
      [['--exporter', 'blackbox', '--uninstall', '--spec', 'spec.yaml'], 'error: --uninstall takes no --spec, --files, --vendor or --arch: it removes what the last install recorded'],
      [['--exporter', 'blackbox', '--files', root, '--vendor', 'acme'], 'error: --vendor applies to --spec; the tree given with --files was rendered for its vendor already'],
    ];
    try {
      for (const [args, message] of cases) {
        const result = await call(args, root);
        expect([args, result.code, result.stdout, result.stderr]).toEqual([args, 2, '', expect.stringContaining(message)]);
        expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      }
      expect(readdirSync(root)).toEqual(['spec.yaml']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
