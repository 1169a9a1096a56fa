/** The listen address as `--web.listen-address` takes it: one grammar for the exporter's flag and the spec's host.listenAddress. */
import { exporterArgs, parseListenAddress } from '../../src/contract/endpoints';
import { splitListenAddress } from '../../src/main';

describe('listen addresses', () => {
  it.each([
    [':9115', { host: '', port: 9115 }],
    ['127.0.0.1:9115', { host: '127.0.0.1', port: 9115 }],
    ['[::1]:9200', { host: '::1', port: 9200 }],
    ['[::]:9115', { host: '::', port: 9115 }],
    ['localhost:65535', { host: 'localhost', port: 65535 }],
    ['0.0.0.0:0', { host: '0.0.0.0', port: 0 }],
  ])('%s is host and port', (address, parsed) => {
    expect(parseListenAddress(address)).toEqual(parsed);
    expect(splitListenAddress(address)).toEqual(parsed);
  });

  it.each(['9115', 'localhost', '127.0.0.1:', '::1:9115', '[::1:9115', '127.0.0.1:65536', '127.0.0.1:9115/', 'http://127.0.0.1:9115'])('%s is not one', (address) => {
    expect(parseListenAddress(address)).toBeUndefined();
    expect(() => splitListenAddress(address)).toThrow(`--web.listen-address must be host:port or :port, not ${address}`);
  });

  it('is always written out in the arguments, every interface unless given', () => {
    expect(exporterArgs({ configFile: '/etc/x.yml' })).toEqual(['--config.file=/etc/x.yml', '--web.listen-address=:9115']);
    expect(exporterArgs({ configFile: '/etc/x.yml', listenAddress: '127.0.0.1:9115' })).toEqual(['--config.file=/etc/x.yml', '--web.listen-address=127.0.0.1:9115']);
  });
});
