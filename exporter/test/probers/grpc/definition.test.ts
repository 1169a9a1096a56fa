/** The grpc section: refused as upstream refuses it, defaults, compiled form. */
import { PROBER_DEFINITIONS } from '../../../src/probers/registry';
import { parseConfig } from '../../../src/config/load';
import { configProblems, oneModule } from '../../support/config-problems';

describe('the grpc section', () => {
  it('refuses an unknown field, naming the one likely meant', () => {
    expect(configProblems(oneModule('grpc', 'grpc: { service: a, tls_confg: {} }'))).toEqual(['blackbox.yml:4: modules.m.grpc.tls_confg: unknown field; did you mean "tls_config"?']);
  });

  it('applies upstream defaults, also to a module that leaves its section out', () => {
    expect(PROBER_DEFINITIONS.grpc.schema.parse({})).toMatchObject({ service: '', tls: false, ip_protocol_fallback: true });
    const module = parseConfig('modules:\n  m:\n    prober: grpc\n', 'blackbox.yml').modules.m;
    if (module.prober !== 'grpc') throw new Error('not a grpc module');
    expect(module.grpc).toMatchObject({ service: '', tls: false, tlsConfig: { insecureSkipVerify: false }, ip: { preferred: 6, fallback: true } });
  });
});
