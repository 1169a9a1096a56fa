import { Chart } from 'cdk8s';
import { AgentValues, BlackboxExporter, ProbekitApp, presets } from 'probekit';

const app = new ProbekitApp(); // writes <chart>.agent-values.yaml beside the manifests
const chart = new Chart(app, 'probes', { namespace: 'monitoring' });
const exporter = new BlackboxExporter(chart, 'exporter', { modules: { http_2xx: presets.http2xx() } });
exporter.addModule('ping', { prober: 'icmp' }); // grants NET_RAW to the container
const agent = new AgentValues(chart, 'agent', { exporter }); // scrapes the exporter's Service, over https if it serves https
agent.addScrapeJob({ name: 'web', module: 'http_2xx', targets: ['https://example.com'] }); // checked as a spec's job, with its defaults
app.synth();
