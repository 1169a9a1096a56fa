/**
 * GET /: a small HTML page with the exporter's version, its links and the recent probes. Beside upstream's
 * columns it has each probe's time and, for a failed probe, its failure reason (the probe_failure_reason
 * metric's words), which the assistant's probe_failure_logs skill reads.
 */
import { describeFailure } from '../contract/failure-reasons';
import type { ProbeRecord } from './history';

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

export function statusPage(version: string, probes: readonly ProbeRecord[]): string {
  const rows = probes
    .map(
      (probe) =>
        `<tr><td>${escape(probe.module)}</td><td>${escape(probe.target)}</td><td>${probe.success ? 'Success' : '<strong>Failure</strong>'}</td>` +
        `<td>${probe.failure ? escape(describeFailure(probe.failure)) : ''}</td>` +
        `<td>${probe.at.toISOString()}</td><td><a href="logs?id=${probe.id}">Logs</a></td></tr>`,
    )
    .join('\n');
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>probekit exporter</title></head>
<body>
<h1>probekit exporter</h1>
<p>Version ${escape(version)}. A blackbox_exporter-compatible probing exporter.</p>
<p><a href="probe?module=http_2xx&amp;target=prometheus.io">Probe prometheus.io for http_2xx</a></p>
<p><a href="probe?module=http_2xx&amp;target=prometheus.io&amp;debug=true">Debug probe prometheus.io for http_2xx</a></p>
<p><a href="metrics">Metrics</a></p>
<p><a href="config">Configuration</a></p>
<h2>Recent Probes</h2>
<table border="1" cellpadding="4">
<tr><th>Module</th><th>Target</th><th>Result</th><th>Reason</th><th>Time</th><th>Debug</th></tr>
${rows}
</table>
</body></html>
`;
}
