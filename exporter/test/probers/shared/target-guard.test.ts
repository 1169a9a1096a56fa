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
