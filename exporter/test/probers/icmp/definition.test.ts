/** The icmp section: refused as upstream refuses it, defaults, compiled form. */
import { PROBER_DEFINITIONS } from '../../../src/probers/registry';
import { parseConfig } from '../../../src/config/load';
import { configProblems, oneModule } from '../../support/config-problems';

describe('the icmp section', () => {
  it.each([
    ['a ttl above 255', 'icmp: { ttl: 256 }', 'blackbox.yml:4: modules.m.icmp.ttl: must be at most 255'],
    ['a negative ttl', 'icmp: { ttl: -1 }', 'blackbox.yml:4: modules.m.icmp.ttl: must be at least 0'],
  ])('refuses %s', (_name, section, message) => {
    expect(configProblems(oneModule('icmp', section))).toEqual([message]);
  });

  it('applies upstream defaults, and builds the echo payload once', () => {
    expect(PROBER_DEFINITIONS.icmp.schema.parse({})).toMatchObject({ ttl: 64, dont_fragment: false, preferred_ip_protocol: 'ip6', ip_protocol_fallback: true });
    const module = parseConfig(oneModule('icmp', 'icmp: { payload_size: 32 }'), 'blackbox.yml').modules.m;
    if (module.prober !== 'icmp') throw new Error('not an icmp module');
    expect(module.icmp.payload).toEqual(Buffer.concat([Buffer.from('Prometheus Blackbox Exporter'), Buffer.alloc(4)]));
    expect(module.icmp).toMatchObject({ ttl: 64, dontFragment: false, ip: { preferred: 6, fallback: true } });
  });
});
