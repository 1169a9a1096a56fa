import { networkInterfaces } from 'node:os';
import { compileAllowList } from '../../../src/config/allowed-targets';
import type { Problem } from '../../../src/contract/problems';
import { selfListener, TargetGuard, TargetRefused } from '../../../src/probers/shared/target-guard';

function guardOf(section: { hosts?: string[]; networks?: string[]; deny_self_and_metadata?: boolean }[], listenAddress = '0.0.0.0'): TargetGuard {
  const problems: Problem[] = [];
  const lists = section.map((each, index) => compileAllowList({ deny_self_and_metadata: false, ...each }, index === 0 ? ['allowed_targets'] : ['modules', 'm', 'allowed_targets'], problems));
  expect(problems).toEqual([]);
  return new TargetGuard(lists, selfListener(listenAddress, 9115));
}

/** The refusal's reason label, or undefined when the address passes. */
function refusedAs(check: () => void): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (error instanceof TargetRefused) return error.refusal.reason;
    throw error;
  }
}

describe('the target guard', () => {
  it('refuses every local address at the port of a listener on all interfaces, in any form, and no other port', () => {
    const guard = guardOf([{ deny_self_and_metadata: true }]);
    const local = Object.values(networkInterfaces())
      .flat()
      .map((entry) => entry!.address)
      // A link-local interface address is refused as such first.
      .filter((address) => !address.startsWith('fe80:'));
    for (const address of [...local, '127.0.0.1', '127.9.9.9', '::ffff:127.0.0.1', '::1', '0.0.0.0', '::']) {
      expect(refusedAs(() => guard.checkAddress(address, address, 9115))).toBe('exporter_itself');
      expect(refusedAs(() => guard.checkAddress(address, address, 9116))).toBeUndefined();
    }
  });

  it('refuses only its own address when the exporter listens on one', () => {
    const guard = guardOf([{ deny_self_and_metadata: true }], '127.0.0.1');
    expect(refusedAs(() => guard.checkAddress('localhost', '127.0.0.1', 9115))).toBe('exporter_itself');
    expect(refusedAs(() => guard.checkAddress('127.0.0.2', '127.0.0.2', 9115))).toBeUndefined();
  });

  it('refuses link-local and metadata addresses, with a zone or IPv4-mapped, whatever the port', () => {
    const guard = guardOf([{ deny_self_and_metadata: true }]);
    for (const address of ['169.254.169.254', '::ffff:169.254.169.254', 'fe80::1%eth0', 'fd00:ec2::254']) {
      expect(refusedAs(() => guard.checkAddress(address, address, 80))).toBe('link_local_or_metadata');
    }
    expect(refusedAs(() => guard.checkAddress('fd00:ec2::253', 'fd00:ec2::253', 80))).toBeUndefined();
  });

  it('lets a target through only when both the exporter-wide list and the module list pass it', () => {
    const guard = guardOf([{ networks: ['10.0.0.0/8'] }, { networks: ['10.1.0.0/16'], hosts: ['*.example.org'] }]);
    expect(refusedAs(() => guard.checkAddress('a.example.org', '10.1.2.3', 80))).toBeUndefined();
    expect(refusedAs(() => guard.checkAddress('a.example.org', '10.2.0.1', 80))).toBe('network_not_allowed');
    expect(refusedAs(() => guard.checkHost('example.org'))).toBe('host_not_allowed');
    expect(refusedAs(() => guard.checkUnresolved('a.example.org'))).toBe('address_not_resolved');
  });

  it('keeps the first refusal of the probe, with its stage', () => {
    const guard = guardOf([{ networks: ['10.0.0.0/8'] }]);
    expect(refusedAs(() => guard.checkAddress('x.test', '192.0.2.1', 80, 'redirect'))).toBe('network_not_allowed');
    expect(refusedAs(() => guard.checkAddress('y.test', '192.0.2.2', 80))).toBe('network_not_allowed');
    expect(guard.refusal).toEqual({ reason: 'network_not_allowed', stage: 'redirect', message: 'target refused: "x.test" (resolved to 192.0.2.1) lies in none of allowed_targets.networks' });
  });
});

describe('the target guard on IPv6 forms that carry an IPv4 address', () => {
  /** NAT64 local-use (64:ff9b:1::/48) with the IPv4 address where an operator's /48, /56, /64 or /96 prefix puts it (RFC 6052). */
  function nat64Local(ipv4: string, prefixLength: 48 | 56 | 64 | 96): string {
    const four = ipv4.split('.').map(Number);
    const bytes = [0, 0x64, 0xff, 0x9b, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    const places = { 48: [6, 7, 9, 10], 56: [7, 9, 10, 11], 64: [9, 10, 11, 12], 96: [12, 13, 14, 15] }[prefixLength];
    places.forEach((place, index) => (bytes[place] = four[index]));
    const groups: string[] = [];
    for (let index = 0; index < 16; index += 2) groups.push(((bytes[index] << 8) | bytes[index + 1]).toString(16));
    return groups.join(':');
  }
  /** Teredo with `server` and the client's address inverted, as RFC 4380 writes it. */
  function teredo(server: string, client: string): string {
    const hex = (ipv4: string, invert: number): string[] => {
      const [a, b, c, d] = ipv4.split('.').map((byte) => Number(byte) ^ invert);
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    };
    return ['2001', '0', ...hex(server, 0), '0', 'f227', ...hex(client, 0xff)].join(':');
  }

  const metadataSpellings = [
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::169.254.169.254',
    '0064:ff9b:0000:0000:0000:0000:a9fe:a9fe',
    '64:ff9b::a9fe:1',
    '::a9fe:a9fe',
    '::169.254.169.254',
    '0:0:0:0:0:0:a9fe:a9fe',
    '::ffff:0:a9fe:a9fe',
    '::ffff:0:169.254.169.254',
    '2002:a9fe:a9fe::1',
    '2002:a9fe:a9fe:1234:5678::9',
    '2002:a9fe:1::',
    teredo('169.254.169.254', '192.0.2.1'),
    teredo('192.0.2.1', '169.254.169.254'),
    nat64Local('169.254.169.254', 48),
    nat64Local('169.254.169.254', 56),
    nat64Local('169.254.169.254', 64),
    nat64Local('169.254.169.254', 96),
  ];

  it('refuses every IPv6 form of a link-local or metadata IPv4 address, at any port', () => {
    const guard = guardOf([{ deny_self_and_metadata: true }]);
    for (const address of metadataSpellings) {
      for (const port of [80, 9115]) expect([address, port, refusedAs(() => guard.checkAddress(address, address, port))]).toEqual([address, port, 'link_local_or_metadata']);
    }
  });

  it('refuses NAT64, IPv4-compatible and IPv4-translated forms of loopback at its port, and 6to4 or Teredo over loopback at any port', () => {
    const guard = guardOf([{ deny_self_and_metadata: true }]);
    for (const address of ['64:ff9b::7f00:1', '64:ff9b::127.0.0.1', '::127.0.0.1', '::7f00:1', '::ffff:0:7f00:1', '64:ff9b::', '::0.0.0.0']) {
      expect([address, refusedAs(() => guard.checkAddress(address, address, 9115))]).toEqual([address, 'exporter_itself']);
      expect([address, refusedAs(() => guard.checkAddress(address, address, 9116))]).toEqual([address, undefined]);
    }
    for (const address of ['2002:7f00:1::1', teredo('127.0.0.1', '192.0.2.1')]) {
      expect([address, refusedAs(() => guard.checkAddress(address, address, 9116))]).toEqual([address, 'exporter_itself']);
    }
  });

  it('lets the same forms of ordinary addresses through, and :: and ::1 stay unspecified and loopback', () => {
    const guard = guardOf([{ deny_self_and_metadata: true }], '127.0.0.1');
    for (const address of ['64:ff9b::c000:201', '::c000:201', '::ffff:0:c000:201', '2002:c000:201::1', teredo('192.0.2.1', '198.51.100.7'), nat64Local('192.0.2.1', 56), '2001:db8::a9fe:a9fe']) {
      expect([address, refusedAs(() => guard.checkAddress(address, address, 80))]).toEqual([address, undefined]);
    }
    const everywhere = guardOf([{ deny_self_and_metadata: true }]);
    expect(refusedAs(() => everywhere.checkAddress('::1', '::1', 9115))).toBe('exporter_itself');
    expect(refusedAs(() => everywhere.checkAddress('::', '::', 9115))).toBe('exporter_itself');
  });

  it('checks NAT64, IPv4-compatible and IPv4-translated addresses against networks as the IPv4 host they reach', () => {
    const guard = guardOf([{ networks: ['10.0.0.0/8', '2001:db8::/32'] }]);
    for (const address of ['64:ff9b::a00:1', '::a00:1', '::ffff:0:a00:1', '::ffff:10.0.0.1', '2001:db8::a9fe:a9fe']) {
      expect([address, refusedAs(() => guard.checkAddress(address, address, 80))]).toEqual([address, undefined]);
    }
    for (const address of ['64:ff9b::a9fe:a9fe', '64:ff9b::c0a8:1', '::c0a8:1', '2002:a00:1::1']) {
      expect([address, refusedAs(() => guard.checkAddress(address, address, 80))]).toEqual([address, 'network_not_allowed']);
    }
    // A listed range in NAT64's prefix is the IPv4 range it carries: 64:ff9b::a00:0/104 is 10.0.0.0/8.
    const nat64 = guardOf([{ networks: ['64:ff9b::a00:0/104'] }]);
    expect(refusedAs(() => nat64.checkAddress('10.1.2.3', '10.1.2.3', 80))).toBeUndefined();
    expect(refusedAs(() => nat64.checkAddress('64:ff9b::a9fe:a9fe', '64:ff9b::a9fe:a9fe', 80))).toBe('network_not_allowed');
  });

  it('matches an IP host pattern against the IPv4 host a NAT64 or IPv4-compatible target reaches', () => {
    const guard = guardOf([{ hosts: ['10.0.0.1'] }]);
    expect(refusedAs(() => guard.checkHost('[64:ff9b::a00:1]'))).toBeUndefined();
    expect(refusedAs(() => guard.checkHost('[::a00:1]'))).toBeUndefined();
    expect(refusedAs(() => guard.checkHost('[64:ff9b::a00:2]'))).toBe('host_not_allowed');
  });

  it('names the IPv4 host or the carried address in its message', () => {
    const guard = guardOf([{ deny_self_and_metadata: true }]);
    expect(() => guard.checkAddress('nat64.test', '64:ff9b::a9fe:a9fe', 80)).toThrow(
      'target refused: "nat64.test" (resolved to 64:ff9b::a9fe:a9fe) (the IPv4 host 169.254.169.254) is a link-local or cloud metadata address, refused by allowed_targets.deny_self_and_metadata',
    );
    expect(() => guard.checkAddress('2002:a9fe:a9fe::1', '2002:a9fe:a9fe::1', 80)).toThrow(
      'target refused: 2002:a9fe:a9fe::1 carries the IPv4 address 169.254.169.254 (6to4), a link-local or cloud metadata address, refused by allowed_targets.deny_self_and_metadata',
    );
  });
});
