import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { echoPayload, echoRequest, isExpectedReply } from '../../../src/probers/icmp/echo';
import { openIcmpSocket, type IcmpSocket } from '../../../src/probers/icmp/socket';
import type { ModuleInput } from '../../../src/contract';
import { metricValue } from '../../../loopback/metrics-text';
import { rawSocketsAllowed } from '../../support/icmp-privileges';
import { runModule, type ProbeRun } from '../../support/probe-run';
import { requireBinary } from '../../../../test/support/integration';

type IcmpSettings = NonNullable<ModuleInput['icmp']>;

const probe = (target: string, icmp: IcmpSettings = {}, timeoutMs = 2000) => runModule({ prober: 'icmp', icmp }, target, { timeoutMs });

/** Echo requests seen on loopback by a raw socket of the test: their TTL or hop limit, and size. */
interface SeenRequest {
  readonly hopLimit: number;
  readonly bytes: number;
  readonly from: string;
}

function sniff(family: 4 | 6): { seen: SeenRequest[]; socket: IcmpSocket } {
  const seen: SeenRequest[] = [];
  const socket = openIcmpSocket({ family, raw: true }, (message, from, hopLimit) => {
    if (message[0] === (family === 4 ? 8 : 128)) seen.push({ hopLimit, bytes: message.length, from });
  });
  return { seen, socket };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

const describeRaw = rawSocketsAllowed() ? describe : describe.skip;

describe('icmp echo matching', () => {
  const payload = echoPayload(0);
  const reply = (family: 4 | 6, identifier: number, sequence: number, data = payload): Buffer => {
    const message = echoRequest(family, identifier, sequence, data);
    message[0] = family === 4 ? 0 : 129;
    return message;
  };
  const expected = { family: 4 as const, from: '127.0.0.1', identifier: 0x1234, sequence: 7, payload };

  it('takes the reply with the identifier, sequence, payload and sender of the request', () => {
    expect(isExpectedReply(reply(4, 0x1234, 7), '127.0.0.1', expected)).toBe(true);
    expect(isExpectedReply(reply(4, 0x1235, 7), '127.0.0.1', expected)).toBe(false);
    expect(isExpectedReply(reply(4, 0x1234, 8), '127.0.0.1', expected)).toBe(false);
    expect(isExpectedReply(reply(4, 0x1234, 7, echoPayload(40)), '127.0.0.1', expected)).toBe(false);
    expect(isExpectedReply(reply(4, 0x1234, 7), '127.0.0.2', expected)).toBe(false);
    // Its own request, which a raw socket also sees on loopback, is not a reply.
    expect(isExpectedReply(echoRequest(4, 0x1234, 7, payload), '127.0.0.1', expected)).toBe(false);
    expect(isExpectedReply(reply(6, 0x1234, 7), '::1', { ...expected, family: 6, from: '::1' })).toBe(true);
  });

  it('ignores the identifier on a ping socket, where the kernel chooses it', () => {
    expect(isExpectedReply(reply(4, 0x9999, 7), '127.0.0.1', { ...expected, identifier: undefined })).toBe(true);
  });

  it('pads payload_size with zeros after upstream text, and checksums IPv4 requests', () => {
    expect(echoPayload(0).toString()).toBe('Prometheus Blackbox Exporter');
    expect(echoPayload(10).toString()).toBe('Prometheus');
    expect(echoPayload(32)).toEqual(Buffer.concat([Buffer.from('Prometheus Blackbox Exporter'), Buffer.alloc(4)]));
    const request = echoRequest(4, 1, 2, Buffer.from('ab'));
    let sum = 0;
    for (let index = 0; index < request.length; index += 2) sum += request.readUInt16BE(index);
    while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
    expect(sum).toBe(0xffff);
  });
});

describeRaw('raw ICMP socket with an echo identifier', () => {
  it.each([
    ['127.0.0.1', 4],
    ['::1', 6],
  ] as const)('receives on %s only the echo replies that carry its identifier', async (target, family) => {
    const received: Array<[number, number]> = [];
    const filtered = openIcmpSocket({ family, raw: true, echoIdentifier: 0x4242 }, (message) => received.push([message[0], message.readUInt16BE(4)]));
    const sender = openIcmpSocket({ family, raw: true }, () => undefined);
    try {
      const payload = echoPayload(0);
      sender.send(echoRequest(family, 0x4241, 1, payload), target);
      sender.send(echoRequest(family, 0x4242, 2, payload), target);
      await settle();
      // Not its own request, which loopback shows every raw socket, nor the reply to another identifier.
      expect(received).toEqual([[family === 4 ? 0 : 129, 0x4242]]);
    } finally {
      filtered.close();
      sender.close();
    }
  });
});

describeRaw('icmp prober (with CAP_NET_RAW)', () => {
  it.each([
    ['127.0.0.1', 4],
    ['::1', 6],
  ] as const)('echoes %s and reports phases, protocol and reply hop limit', async (target, family) => {
    const run = await probe(target);
    expect(run.success).toBe(true);
    expect(run.failure).toBeUndefined();
    expect(metricValue(run.samples, 'probe_ip_protocol')).toBe(family);
    expect(metricValue(run.samples, 'probe_icmp_reply_hop_limit')).toBe(64);
    for (const phase of ['resolve', 'setup', 'rtt']) {
      expect(metricValue(run.samples, 'probe_icmp_duration_seconds', { phase })).toBeGreaterThanOrEqual(0);
    }
    expect(metricValue(run.samples, 'probe_icmp_duration_seconds', { phase: 'rtt' })).toBeGreaterThan(0);
  });

  it.each([4, 6] as const)('sends with the configured ttl and payload_size (IPv%s)', async (family) => {
    const target = family === 4 ? '127.0.0.1' : '::1';
    const { seen, socket } = sniff(family);
    try {
      expect((await probe(target, { ttl: 7, payload_size: 100 })).success).toBe(true);
      expect((await probe(target)).success).toBe(true);
      await settle();
    } finally {
      socket.close();
    }
    // Upstream's 28-byte text is the default payload; 8 bytes of ICMP header come before it.
    expect(seen).toEqual([
      { hopLimit: 7, bytes: 108, from: target },
      { hopLimit: 64, bytes: 36, from: target },
    ]);
  });

  it('sends from source_ip_address', async () => {
    const { seen, socket } = sniff(4);
    try {
      expect((await probe('127.0.0.1', { source_ip_address: '127.0.0.2' })).success).toBe(true);
      await settle();
    } finally {
      socket.close();
    }
    expect(seen.map((request) => request.from)).toEqual(['127.0.0.2']);
    const wrongFamily = await probe('127.0.0.1', { source_ip_address: '::1' });
    expect(wrongFamily.success).toBe(false);
    // An address of this host that is not loopback cannot reach... itself is fine; one it does not have cannot bind.
    const notLocal = await probe('127.0.0.1', { source_ip_address: '192.0.2.1' });
    expect(notLocal.success).toBe(false);
    expect(notLocal.log).toMatch(/bind.*EADDRNOTAVAIL/);
  });

  it('keeps concurrent probes apart by sequence', async () => {
    const runs = await Promise.all(Array.from({ length: 20 }, (_, index) => probe(index % 2 === 0 ? '127.0.0.1' : '::1')));
    expect(runs.map((run) => run.success)).toEqual(Array(20).fill(true));
    const sequences = runs.map((run) => /seq=(\d+)/.exec(run.log)?.[1]);
    expect(new Set(sequences).size).toBe(20);
  });

  it('follows preferred_ip_protocol and ip_protocol_fallback', async () => {
    const fallback = await probe('localhost', { preferred_ip_protocol: 'ip6', ip_protocol_fallback: true });
    expect(fallback.success).toBe(true);
    expect(metricValue(fallback.samples, 'probe_ip_protocol')).toBe(4);
    const noAddress = await probe('localhost', { preferred_ip_protocol: 'ip6', ip_protocol_fallback: false });
    expect([noAddress.success, noAddress.failure]).toEqual([false, { reason: 'resolve failed' }]);
  });
});

const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

interface ChildRun extends ProbeRun {
  /** process.getActiveResourcesInfo() of the child once the probe is over. */
  readonly resourcesAfter: string[];
  /** Descriptors open after the probe less those open before (the ICMP socket is not a libuv handle Node lists). */
  readonly descriptorsLeft: number;
}

/** The user `nobody`, to run a probe without root. */
const NOBODY = 65534;

/**
 * Runs the probe in a child process: `setup` (shell) runs first, in a fresh network namespace when
 * `namespace`; the probe then runs without CAP_NET_RAW when `dropNetRaw`, or as user nobody when
 * `nobody` is set, with CAP_NET_RAW as an ambient capability when `nobody.netRaw`.
 */
function probeInChild(options: { namespace: boolean; setup?: string; dropNetRaw: boolean; nobody?: { netRaw: boolean } }, target: string, icmp: IcmpSettings, timeoutMs = 2000): ChildRun {
  const tsx = join(__dirname, '../../../../node_modules/.bin/tsx');
  const child = join(__dirname, '../../support/icmp-probe-child.ts');
  let command = [tsx, child, target, JSON.stringify(icmp), String(timeoutMs)].map(quote).join(' ');
  if (options.dropNetRaw) command = `/usr/bin/setpriv --bounding-set=-net_raw -- ${command}`;
  if (options.nobody) {
    const capabilities = options.nobody.netRaw ? '--inh-caps=+net_raw --ambient-caps=+net_raw ' : '';
    command = `/usr/bin/setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups ${capabilities}-- ${command}`;
  }
  const script = `${options.setup ? `${options.setup} && ` : ''}exec ${command}`;
  const argv = options.namespace ? ['/usr/bin/unshare', '-n', 'sh', '-c', script] : ['sh', '-c', script];
  return JSON.parse(execFileSync(argv[0], argv.slice(1), { encoding: 'utf8', timeout: 30000 })) as ChildRun;
}

/** Network namespaces need root with CAP_SYS_ADMIN, which some containers do not grant even to root. */
function namespacesAllowed(): boolean {
  try {
    execFileSync('/usr/bin/unshare', ['-n', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const privilegeTools =
  rawSocketsAllowed() && process.getuid?.() === 0 && requireBinary('/usr/bin/setpriv') && requireBinary('/usr/bin/unshare') && requireBinary('/usr/sbin/ip') && namespacesAllowed();
const describePrivileges = privilegeTools ? describe : describe.skip;

describePrivileges('icmp prober under other privileges and networks (child processes)', () => {
  it('without CAP_NET_RAW nor ping sockets fails with a line naming the capability', () => {
    const run = probeInChild({ namespace: false, dropNetRaw: true }, '127.0.0.1', {});
    expect([run.success, run.failure]).toEqual([false, { reason: 'connection failed' }]);
    expect(run.log).toMatch(/level=error msg="Error listening to socket" err=".*CAP_NET_RAW.*ping_group_range/);
  });

  // The child runs this checkout's files as nobody: only where they are readable to others (not under /root, say).
  const nobodyCanRead = (() => {
    try {
      execFileSync('/usr/bin/setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', 'test', '-r', join(__dirname, '../../support/icmp-probe-child.ts')]);
      return true;
    } catch {
      return false;
    }
  })();
  (nobodyCanRead ? it : it.skip)('works for a user other than root given CAP_NET_RAW, and fails for one without it', () => {
    const granted = probeInChild({ namespace: false, dropNetRaw: false, nobody: { netRaw: true } }, '127.0.0.1', {});
    expect([granted.success, granted.log]).toEqual([true, expect.stringMatching(/raw=true/)]);
    const refused = probeInChild({ namespace: false, dropNetRaw: false, nobody: { netRaw: false } }, '127.0.0.1', {});
    expect(refused.success).toBe(false);
    expect(refused.log).toMatch(/CAP_NET_RAW.*ping_group_range including group 65534/);
  });

  it('uses an unprivileged ping socket where net.ipv4.ping_group_range allows it', () => {
    const setup = 'ip link set lo up && echo "0 2147483647" > /proc/sys/net/ipv4/ping_group_range';
    for (const target of ['127.0.0.1', '::1']) {
      const run = probeInChild({ namespace: true, setup, dropNetRaw: true }, target, { ttl: 9 });
      expect([target, run.success, run.log]).toEqual([target, true, expect.stringMatching(/raw=false/)]);
      expect(metricValue(run.samples, 'probe_icmp_reply_hop_limit')).toBe(64);
    }
  });

  it.each(['127.0.0.1', '::1'])('does not fragment %s with dont_fragment (a 1500-byte MTU namespace)', (target) => {
    const setup = 'ip link set lo up mtu 1500';
    const fragmented = probeInChild({ namespace: true, setup, dropNetRaw: false }, target, { payload_size: 2000 });
    expect(fragmented.success).toBe(true);
    const refused = probeInChild({ namespace: true, setup, dropNetRaw: false }, target, { payload_size: 2000, dont_fragment: true });
    expect(refused.success).toBe(false);
    expect(refused.log).toMatch(/Error writing to socket.*EMSGSIZE/);
  });

  it.each(['127.0.0.1', '::1'])('gives up on %s at the deadline when echo is ignored, leaving nothing open', (target) => {
    const setup = 'ip link set lo up && echo 1 > /proc/sys/net/ipv4/icmp_echo_ignore_all && echo 1 > /proc/sys/net/ipv6/icmp/echo_ignore_all';
    const run = probeInChild({ namespace: true, setup, dropNetRaw: false }, target, {}, 500);
    expect([run.success, run.failure]).toEqual([false, { reason: 'ICMP no reply' }]);
    expect(run.log).toContain('Timeout reading from socket');
    expect(run.deadlineExpired).toBe(true);
    expect(run.resourcesAfter).toEqual([]);
    expect(run.descriptorsLeft).toBe(0);
  });
});
