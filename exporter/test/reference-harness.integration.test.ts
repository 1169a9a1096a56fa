import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { describeWithBinaries } from '../../test/support/integration';
import { REFERENCE_EXPORTER, startExporter, type RunningExporter } from '../loopback/reference-exporter';
import { metricValue } from '../loopback/metrics-text';

describeWithBinaries([REFERENCE_EXPORTER])('differential harness: the reference exporter', () => {
  let target: Server;
  let reference: RunningExporter;

  beforeAll(async () => {
    target = createServer((request, response) => response.end(request.url === '/ok' ? 'ok' : 'no')).listen(0, '127.0.0.1');
    await once(target, 'listening');
    reference = await startExporter('reference', 'modules:\n  http_2xx:\n    prober: http\n    http:\n      preferred_ip_protocol: ip4\n');
  });

  afterAll(async () => {
    await reference?.stop();
    target?.close();
  });

  it('starts on a free loopback port and answers probes with parsed metrics', async () => {
    const { port } = target.address() as AddressInfo;
    const result = await reference.probe({ module: 'http_2xx', target: `http://127.0.0.1:${port}/ok` });
    expect(result.status).toBe(200);
    expect(metricValue(result.samples, 'probe_success')).toBe(1);
    expect(metricValue(result.samples, 'probe_http_status_code')).toBe(200);
    const missing = await reference.probe({ module: 'nope', target: 'x' });
    expect(missing.status).toBe(400);
  });
});
