/** The exporter's log: logfmt or JSON lines (--log.format), and probes' lines by --log.prober, as upstream 0.28. */
import { Logger, ProbeLog } from '../src/log';

function capture(level: ConstructorParameters<typeof Logger>[0], format: 'logfmt' | 'json', prober: ConstructorParameters<typeof Logger>[3]): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { log: new Logger(level, (line) => lines.push(line), format, prober), lines };
}

describe('--log.format', () => {
  it('writes JSON lines shaped as Go slog writes them', () => {
    const { log, lines } = capture('info', 'json', 'info');
    log.warn('Config file note', { file: 'b.yml', count: 3, ok: true, err: new Error('boom') });
    log.debug('not written');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]) as Record<string, unknown>;
    expect(line).toEqual({ time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), level: 'WARN', msg: 'Config file note', file: 'b.yml', count: 3, ok: true, err: 'boom' });
  });

  it('writes probes’ lines in the same format, in the debug output too', () => {
    const { log, lines } = capture('info', 'json', 'info');
    const probe = new ProbeLog(log, { module: 'm', target: 't' });
    probe.error('Probe failed', { duration_seconds: 0.5 });
    expect(JSON.parse(lines[0])).toMatchObject({ level: 'ERROR', msg: 'Probe failed', module: 'm', target: 't', duration_seconds: 0.5 });
    expect(JSON.parse(probe.text().trim())).toMatchObject({ msg: 'Probe failed' });
  });
});

describe('--log.prober', () => {
  it('writes probes’ lines from its level on, whatever --log.level says', () => {
    const { log, lines } = capture('error', 'logfmt', 'debug');
    const probe = new ProbeLog(log, { module: 'm', target: 't' });
    probe.debug('Resolving target address');
    log.info('exporter line below --log.level');
    expect(lines).toEqual([expect.stringMatching(/ level=debug msg="Resolving target address" module=m target=t$/)]);
  });

  it('keeps lines below it out of the log by default (info) but in the debug output', () => {
    const { log, lines } = capture('debug', 'logfmt', 'info');
    const probe = new ProbeLog(log, { module: 'm', target: 't' });
    probe.debug('Beginning probe');
    probe.error('Probe failed');
    expect(lines).toEqual([expect.stringContaining('msg="Probe failed"')]);
    expect(probe.text()).toMatch(/msg="Beginning probe"[\s\S]*msg="Probe failed"/);
  });
});
