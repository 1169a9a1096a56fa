/**
 * `probekit`: the construct library. The constructs and the app that writes their files, the spec (its types, its
 * parser, the presets, the documented example) and its problems. The renderers behind the constructs are not part
 * of it: the constructs, `synthesize` and the CLI are the ways to their output.
 */

// The whole spec as constructs, and the parts alone.
export { ProbekitApp, ProbekitChart, Probekit, clusterFormProblems, type ProbekitProps } from './cdk8s/probekit';
export { synthesize, type Synthesized } from './cdk8s/synth';
export { BlackboxExporter, CONFIG_CHECKSUM_ANNOTATION, type BlackboxExporterProps } from './cdk8s/blackbox-exporter';
export { AgentValues, type AgentValuesProps } from './cdk8s/agent-values';
export { Probes, type ProbesProps } from './cdk8s/probes';
export { EndpointsDashboard, type EndpointsDashboardProps } from './cdk8s/endpoints-dashboard';
export { ProbeAlerts, type ProbeAlertsProps } from './cdk8s/probe-alerts';
export { SearchEngineSecret, type SearchEngineSecretProps } from './cdk8s/search-engine-secret';
export { AssistantSkills, MCP_TOKEN_ENV, type AssistantSkillsProps, type SecretKeyReference } from './cdk8s/assistant-skills';

// What the constructs' files hold, as types.
export type { AgentChartValues, AlloyChartValues, GenericChartValues, K8sMonitoringChartValues, PrometheusChartValues, VictoriaMetricsAgentChartValues } from './render/agent-charts';
export type { ScrapeConfig, RelabelRule } from './render/scrape-job';
export type { DashboardJson } from './render/dashboard';
export type { RuleFile } from './render/alert-rules';
/** The label every object of probekit carries, for `kubectl get all -l app.kubernetes.io/part-of=probekit`. */
export { PART_OF_PROBEKIT } from './render/labels';

// The spec: its types, its defaults, its parser, the presets and the documented example.
export type * from './model/spec';
export { DEFAULTS } from './model/spec';
export type * from './model/agent-chart';
export { AGENT_CHARTS } from './model/agent-chart';
export { parseSpec, checkTarget, SpecError, type ParseOptions } from './model/validate';
export { loadSpecFile, parseSpecText, SpecFileError, type LoadOptions } from './model/load';
export { presets, http2xx, http2xxWithHeader, httpPost2xx, PRESET_NAMES } from './model/presets';
export type { PresetName, PresetModule, Http2xxPreset, Http2xxWithHeaderPreset, HttpPost2xxPreset, Http2xxWithHeaderOptions, HttpPost2xxOptions } from './model/presets';
export type { SecretRef, ExternalSecretSource, Environment } from './model/secret-ref';
export { documentedExample } from './model/example';

// Problems as data: what is wrong and where, printed at the edge.
export { formatPath, formatProblem, ProblemsError, type FieldPath, type Problem } from '@probekit/exporter';
// For an app that checks inputs of its own in the spec's words (the Pulumi program's stack configuration).
export { valueFreeSchemaProblems, withRequiredHints } from './model/problems';
