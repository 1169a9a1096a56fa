/**
 * The public index (src/index.ts, `import ... from 'probekit'`): the constructs, the spec's types, parser, presets and
 * example, and problems; none of the renderers behind the constructs, whose output users reach through the constructs,
 * `synthesize` and the CLI. A name added to the index or a renderer made public again fails this list.
 */
import * as probekit from '../src';

it('exports the constructs, the spec and its problems by name, and no renderer', () => {
  expect(Object.keys(probekit).sort()).toEqual([
    'AGENT_CHARTS',
    'AgentValues',
    'AssistantSkills',
    'BlackboxExporter',
    'CONFIG_CHECKSUM_ANNOTATION',
    'DEFAULTS',
    'EndpointsDashboard',
    'MCP_TOKEN_ENV',
    'PART_OF_PROBEKIT',
    'PRESET_NAMES',
    'ProbeAlerts',
    'Probekit',
    'ProbekitApp',
    'ProbekitChart',
    'Probes',
    'ProblemsError',
    'SearchEngineSecret',
    'SpecError',
    'SpecFileError',
    'checkTarget',
    'clusterFormProblems',
    'documentedExample',
    'formatPath',
    'formatProblem',
    'http2xx',
    'http2xxWithHeader',
    'httpPost2xx',
    'loadSpecFile',
    'parseSpec',
    'parseSpecText',
    'presets',
    'synthesize',
    'valueFreeSchemaProblems',
    'withRequiredHints',
  ]);
  expect(Object.keys(probekit).filter((name) => /^render/.test(name))).toEqual([]);
});
