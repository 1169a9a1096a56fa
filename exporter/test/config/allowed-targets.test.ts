import fc from 'fast-check';
import { parse } from 'yaml';
import { hostMatches, inNetwork, parseHostPattern, parseNetwork, reachedBytes, type HostPattern, type Network } from '../../src/config/allowed-targets';
import { parseConfig } from '../../src/config/load';
import { maskedConfigYaml } from '../../src/config/mask';
import { ip16 } from '../../src/probers/shared/ip-bytes';
import { configProblems } from '../support/config-problems';

function network(text: string): Network {
  const parsed = parseNetwork(text);
  if (typeof parsed === 'string') throw new Error(`${text} ${parsed}`);
  return parsed;
}

function pattern(text: string): HostPattern {
  const parsed = parseHostPattern(text);
  if (typeof parsed === 'string') throw new Error(`${text} ${parsed}`);
  return parsed;
}

/** The address as one 128-bit number, IPv4 in its mapped form: the reference the matcher is held to. */
function asBigInt(address: string): bigint {
  return ip16(address).reduce((value, byte) => (value << 8n) | BigInt(byte), 0n);
}

function inReference(address: string, base: string, prefix: number): boolean {
  const shift = BigInt(128 - prefix);
  return asBigInt(address) >> shift === asBigInt(base) >> shift;
}

const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((bytes) => bytes.join('.'));
const ipv6 = fc.ipV6();

/** `address` with the bits after `prefix` (of `width`) cleared: the base of a network holding it. */
function base(address: string, prefix: number, width: 32 | 128): string {
  const bytes = ip16(address);
  const kept = prefix + (128 - width);
  const masked = bytes.map((byte, index) => byte & ((0xff << (8 - Math.max(0, Math.min(8, kept - index * 8)))) & 0xff));
  if (width === 32) return masked.slice(12).join('.');
  const groups: string[] = [];
  for (let index = 0; index < 16; index += 2) groups.push(((masked[index] << 8) | masked[index + 1]).toString(16));
  return groups.join(':');
}

describe('allowed_targets networks', () => {
  it('holds an IPv4 address exactly when the 128-bit reference says so, also in its IPv4-mapped IPv6 form', () => {
    fc.assert(
      fc.property(ipv4, ipv4, fc.integer({ min: 0, max: 32 }), (address, other, prefix) => {
        const range = network(`${base(other, prefix, 32)}/${prefix}`);
        const expected = inReference(address, other, prefix + 96);
        expect(inNetwork(ip16(address), range)).toBe(expected);
        expect(inNetwork(ip16(`::ffff:${address}`), range)).toBe(expected);
        // A network's own base address is always inside it.
        expect(inNetwork(ip16(other), range)).toBe(true);
      }),
    );
  });

  it('holds an IPv6 address exactly when the 128-bit reference says so, whatever its zone', () => {
    // NAT64, IPv4-compatible and IPv4-translated addresses are the IPv4 host they reach: the target guard's tests hold those.
    const carriesIpv4 = (address: string): boolean => reachedBytes(ip16(address)).join() !== ip16(address).join();
    fc.assert(
      fc.property(ipv6, ipv6, fc.integer({ min: 0, max: 128 }), (address, other, prefix) => {
        fc.pre(![address, other, base(other, prefix, 128)].some(carriesIpv4));
        const range = network(`${base(other, prefix, 128)}/${prefix}`);
        expect(inNetwork(ip16(address), range)).toBe(inReference(address, other, prefix));
        expect(inNetwork(ip16(`${address}%eth0`), range)).toBe(inReference(address, other, prefix));
        expect(inNetwork(ip16(other), range)).toBe(true);
      }),
    );
  });

  it('reads a single address as a network of one, and an IPv4-mapped network as the IPv4 one', () => {
    expect(inNetwork(ip16('127.0.0.1'), network('127.0.0.1'))).toBe(true);
    expect(inNetwork(ip16('127.0.0.2'), network('127.0.0.1'))).toBe(false);
    expect(inNetwork(ip16('10.1.2.3'), network('::ffff:10.0.0.0/104'))).toBe(true);
    expect(inNetwork(ip16('::1'), network('::1'))).toBe(true);
    expect(inNetwork(ip16('fe80::1%lo'), network('fe80::/10'))).toBe(true);
  });

  it('says what is wrong with a network that does not parse, and how to write it', () => {
    expect(parseNetwork('10.0.0.1/8')).toBe('has bits set after its prefix length (the range is 10.0.0.0/8)');
    expect(parseNetwork('2001:db8::1/32')).toBe('has bits set after its prefix length (the range is 2001:db8::/32)');
    expect(parseNetwork('10.0.0.0/33')).toBe('has a prefix length that is not 0-32');
    expect(parseNetwork('10.0.0.0/')).toBe('has a prefix length that is not 0-32');
    expect(parseNetwork('example.org/8')).toBe('is not an IP address or CIDR range');
    expect(parseNetwork('fe80::1%eth0')).toBe('is not an IP address or CIDR range');
  });
});

describe('allowed_targets hosts', () => {
  it('matches a name exactly, ignoring case and a trailing dot', () => {
    expect(hostMatches('Example.ORG.', pattern('example.org'))).toBe(true);
    expect(hostMatches('www.example.org', pattern('example.org'))).toBe(false);
  });

  it('matches a wildcard first label against names below the suffix only', () => {
    const below = pattern('*.example.com');
    expect(hostMatches('a.example.com', below)).toBe(true);
    expect(hostMatches('a.b.EXAMPLE.com', below)).toBe(true);
    expect(hostMatches('example.com', below)).toBe(false);
    expect(hostMatches('badexample.com', below)).toBe(false);
  });

  it('matches names below any suffix, and none outside it (property)', () => {
    const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?$/);
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 3 }), fc.array(label, { minLength: 1, maxLength: 3 }), (head, suffix) => {
        const suffixName = suffix.join('.');
        expect(hostMatches(`${head.join('.')}.${suffixName}`, pattern(`*.${suffixName}`))).toBe(true);
        expect(hostMatches(suffixName, pattern(`*.${suffixName}`))).toBe(false);
        expect(hostMatches(`${head.join('.')}x${suffixName}`, pattern(`*.${suffixName}`))).toBe(false);
      }),
    );
  });

  it('matches an IP literal pattern against the same address in any form, and never against a name', () => {
    expect(hostMatches('127.0.0.1', pattern('127.0.0.1'))).toBe(true);
    expect(hostMatches('::ffff:127.0.0.1', pattern('127.0.0.1'))).toBe(true);
    expect(hostMatches('0:0:0:0:0:0:0:1', pattern('[::1]'))).toBe(true);
    expect(hostMatches('localhost', pattern('127.0.0.1'))).toBe(false);
    expect(hostMatches('anything.example', pattern('*'))).toBe(true);
  });

  it('refuses what is not a host pattern', () => {
    for (const text of ['', 'a*.example.org', 'example..org', '*', '-a.example', 'ex ample.org', '*.*.example.org']) {
      if (text === '*') expect(parseHostPattern(text)).toEqual({ kind: 'any' });
      else expect(parseHostPattern(text)).toBe('is not a host pattern');
    }
  });
});

describe('allowed_targets in the config file', () => {
  it('compiles the exporter-wide section and each module section once, at load', () => {
    const config = parseConfig(
      [
        'allowed_targets:',
        '  networks: [127.0.0.0/8, "::1"]',
        '  deny_self_and_metadata: true',
        'modules:',
        '  m:',
        '    prober: tcp',
        '    allowed_targets:',
        '      hosts: ["*.allowed.test"]',
        '',
      ].join('\n'),
      'blackbox.yml',
    );
    expect(config.allowedTargets).toMatchObject({ field: 'allowed_targets', denySelfAndMetadata: true, networks: [{ prefix: 104 }, { prefix: 128 }] });
    expect(config.modules.m.allowedTargets).toMatchObject({ field: 'modules.m.allowed_targets', hosts: [{ kind: 'below', suffix: '.allowed.test' }], denySelfAndMetadata: false });
  });

  it('names the field, its line and the fix for every bad entry at once', () => {
    expect(
      configProblems(
        ['allowed_targets:', '  networks: [10.0.0.1/8, nonsense]', 'modules:', '  m:', '    prober: http', '    allowed_targets:', '      hosts: []', '      networks: ["fe80::/130"]', ''].join('\n'),
      ),
    ).toEqual([
      'blackbox.yml:2: allowed_targets.networks[0]: "10.0.0.1/8" has bits set after its prefix length (the range is 10.0.0.0/8); write a CIDR range such as 10.0.0.0/8 or 2001:db8::/32, or one address',
      'blackbox.yml:2: allowed_targets.networks[1]: "nonsense" is not an IP address or CIDR range; write a CIDR range such as 10.0.0.0/8 or 2001:db8::/32, or one address',
      'blackbox.yml:7: modules.m.allowed_targets.hosts: an empty list allows nothing; list what probes may reach, or remove hosts',
      'blackbox.yml:8: modules.m.allowed_targets.networks[0]: "fe80::/130" has a prefix length that is not 0-128; write a CIDR range such as 10.0.0.0/8 or 2001:db8::/32, or one address',
    ]);
  });

  it('shows both sections on /config as written', () => {
    const config = parseConfig('allowed_targets:\n  hosts: [a.test]\nmodules:\n  m:\n    prober: tcp\n    allowed_targets:\n      networks: [10.0.0.0/8]\n', 'blackbox.yml');
    const shown = parse(maskedConfigYaml(config)) as { allowed_targets: unknown; modules: { m: { allowed_targets: unknown } } };
    expect(shown.allowed_targets).toEqual({ hosts: ['a.test'], deny_self_and_metadata: false });
    expect(shown.modules.m.allowed_targets).toEqual({ networks: ['10.0.0.0/8'], deny_self_and_metadata: false });
  });

  it('refuses it in a unix module, whose target has no host', () => {
    expect(configProblems('modules:\n  m:\n    prober: unix\n    allowed_targets:\n      hosts: [a.test]\n')).toEqual([
      "blackbox.yml:4: modules.m.allowed_targets: a unix module's target is a socket path, which has no host or address to check; remove allowed_targets",
    ]);
  });

  it('refuses an unknown field of the section with the fields it has', () => {
    const [problem] = configProblems('allowed_targets:\n  network: [10.0.0.0/8]\nmodules: {}\n');
    expect(problem).toMatch(/^blackbox\.yml:2: allowed_targets\.network: .*networks/);
  });
});
