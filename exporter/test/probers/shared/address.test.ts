import { ProbeRegistry } from '../../../src/metrics';
import { ipAddressHash, resolveTargetAddress, type Lookup } from '../../../src/probers/shared/address';
import { deadlineIn } from '../../../src/probers/shared/deadline';
import { compileIpPreference } from '../../../src/probers/shared/ip-protocol';
import { Logger, ProbeLog } from '../../../src/log';
import { metricValue, parseMetrics } from '../../../loopback/metrics-text';

const quiet = new Logger('error', () => undefined);

async function resolve(host: string, preferred: 'ip4' | 'ip6', fallback: boolean, lookup?: Lookup, ms = 1000) {
  const ip = compileIpPreference({ preferred_ip_protocol: preferred, ip_protocol_fallback: fallback });
  const registry = new ProbeRegistry();
  const deadline = deadlineIn(ms);
  try {
    const result = await resolveTargetAddress(host, ip, deadline, registry, new ProbeLog(quiet, {}), undefined, undefined, lookup);
    return { result, samples: parseMetrics(registry.text()) };
  } catch (error) {
    return { error: error as Error, samples: parseMetrics(registry.text()) };
  } finally {
    deadline.cancel();
  }
}

const dualStack: Lookup = async (_host, family) =>
  [
    { address: '127.0.0.1', family: 4 },
    { address: '::1', family: 6 },
    { address: '127.0.0.2', family: 4 },
  ].filter((entry) => family === 0 || entry.family === family);

describe('target address choice', () => {
  it('hashes addresses with FNV-1a over their 4 or 16 bytes, as upstream', () => {
    // Values the reference blackbox_exporter 0.23.0 reported for these addresses.
    expect(ipAddressHash('127.0.0.1')).toBe(3668918509);
    expect(ipAddressHash('::1')).toBe(1751717746);
    expect(ipAddressHash('::1')).toBe(ipAddressHash('0:0:0:0:0:0:0:1'));
    expect(ipAddressHash('::ffff:127.0.0.1')).toBe(ipAddressHash('::ffff:7f00:1'));
    expect(ipAddressHash('127.0.0.1')).not.toBe(ipAddressHash('127.0.0.2'));
  });

  it('takes the preferred family when the name has it', async () => {
    const { result, samples } = await resolve('dual.test', 'ip6', true, dualStack);
    expect(result).toMatchObject({ address: '::1', family: 6 });
    expect(metricValue(samples, 'probe_ip_protocol')).toBe(6);
    expect(metricValue(samples, 'probe_ip_addr_hash')).toBe(ipAddressHash('::1'));
    expect(metricValue(samples, 'probe_dns_lookup_time_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('falls back to the last address of the other family, as upstream', async () => {
    const v4only: Lookup = async (host, family) => (await dualStack(host, family)).filter((entry) => entry.family === 4);
    const { result, samples } = await resolve('v4.test', 'ip6', true, v4only);
    expect(result).toMatchObject({ address: '127.0.0.2', family: 4 });
    expect(metricValue(samples, 'probe_ip_protocol')).toBe(4);
  });

  it('without fallback asks only for the preferred family and fails when it has none', async () => {
    const families: number[] = [];
    const v4only: Lookup = async (_host, family) => {
      families.push(family);
      return family === 6 ? [] : [{ address: '127.0.0.1', family: 4 }];
    };
    const { error, samples } = await resolve('v4.test', 'ip6', false, v4only);
    expect(families).toEqual([6]);
    expect(error?.message).toMatch(/no ip6 address/);
    // The metrics exist even on failure, with protocol and hash 0, as upstream registers them first.
    expect(metricValue(samples, 'probe_ip_protocol')).toBe(0);
    expect(metricValue(samples, 'probe_ip_addr_hash')).toBe(0);
    expect(metricValue(samples, 'probe_dns_lookup_time_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('uses IP literals as they are, honouring the family rule', async () => {
    expect((await resolve('127.0.0.1', 'ip6', true)).result).toMatchObject({ address: '127.0.0.1', family: 4 });
    expect((await resolve('[::1]', 'ip4', true)).result).toMatchObject({ address: '::1', family: 6 });
    expect((await resolve('127.0.0.1', 'ip6', false)).error).toBeDefined();
  });

  it('resolves real names through the system resolver (/etc/hosts)', async () => {
    const { result } = await resolve('localhost', 'ip4', false);
    expect(result).toMatchObject({ address: '127.0.0.1', family: 4 });
  });

  it('gives up at the deadline when the resolver hangs', async () => {
    // The lookup never settles: only the deadline can end the resolution, and the error says it did.
    const hanging: Lookup = () => new Promise(() => undefined);
    const { error } = await resolve('slow.test', 'ip4', true, hanging, 150);
    expect(error?.name).toBe('DeadlineExceeded');
  });
});
