/**
 * The host form's settings as the spec fills them in (src/model/host.ts): where the exporter listens, and the
 * external URL its debug links use, which follows the listen address unless the spec sets `exporter.externalUrl`.
 */
import { documentedExample, parseSpec, type SpecInput } from '../../src/model';

const withHost = (extra: Partial<SpecInput>) => parseSpec({ ...documentedExample, ...extra });

describe("the host form's external URL", () => {
  it.each([
    [undefined, '127.0.0.1:9115', 'http://127.0.0.1:9115'],
    ['127.0.0.1:9200', '127.0.0.1:9200', 'http://127.0.0.1:9200'],
    ['0.0.0.0:9200', '0.0.0.0:9200', 'http://127.0.0.1:9200'],
    [':9300', ':9300', 'http://127.0.0.1:9300'],
    ['192.0.2.10:9115', '192.0.2.10:9115', 'http://192.0.2.10:9115'],
    ['exporter.example:9115', 'exporter.example:9115', 'http://exporter.example:9115'],
    ['[::]:9115', '[::]:9115', 'http://[::1]:9115'],
    ['[2001:db8::5]:9400', '[2001:db8::5]:9400', 'http://[2001:db8::5]:9400'],
  ])('host.listenAddress %s: listens at %s, links to %s', (listenAddress, listens, url) => {
    const spec = withHost(listenAddress === undefined ? {} : { host: { listenAddress } });
    expect(spec.host).toEqual({ listenAddress: listens, externalUrl: url });
  });

  it("leaves the cluster form's default alone: a cluster is reached through its Service, not the machine's address", () => {
    expect(withHost({ host: { listenAddress: '0.0.0.0:9200' } }).exporter.externalUrl).toBe('http://localhost:9115');
  });

  it('exporter.externalUrl, given, is the URL of both forms, without its trailing slash', () => {
    const spec = withHost({ exporter: { externalUrl: 'https://blackbox.example/' }, host: { listenAddress: '0.0.0.0:9200' } });
    expect([spec.exporter.externalUrl, spec.host.externalUrl]).toEqual(['https://blackbox.example', 'https://blackbox.example']);
  });
});
