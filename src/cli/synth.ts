/**
 * `probekit synth`: the cluster form's files from a spec, in any directory: what the cdk8s app of this repository
 * writes (one ProbekitChart in a ProbekitApp): the manifests, the agent's values, the dashboard and the alert rules,
 * a file holding a Secret's values readable by its owner only. Relative paths are the caller's.
 *
 * Nothing is written unless everything synthesizes: the files are made in a folder beside --out and moved into it
 * at the end. What an earlier synth wrote there is replaced, as `cdk8s synth` replaces its output folder; a folder
 * holding anything else (`--out .` by mistake) is refused before anything is read.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, copyFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ProblemsError, schemaProblems } from '@probekit/exporter';
import { AGENT_CHARTS, documentedExample, parseSpec, readSpecFile, SpecFileError, withAgentChart, type AgentChartName, type Spec } from '../model';
import { agentSchema } from '../model/schema';
import { helpText, parseFlags, usageLine, UsageError, type CliIo, type Command, type Flags } from './command';

const FLAGS = {
  spec: { type: 'string', value: 'FILE', help: 'the spec to synthesize', defaultText: 'the PROBEKIT_SPEC environment variable, else the documented example' },
  out: { type: 'string', short: 'o', value: 'DIR', default: 'dist', help: 'the folder the files are written to; what synth wrote there before is replaced' },
  chart: { type: 'string', value: 'NAME', defaultText: "the spec's agent.chart, else generic", help: `the agent chart the values are written for: ${AGENT_CHARTS.join(', ')}` },
} as const satisfies Flags;

const USAGE = usageLine('probekit synth', FLAGS);

const HELP = helpText(
  USAGE,
  FLAGS,
  `Writes the cluster form of the spec into --out: <chart>.k8s.yaml (the exporter's Kubernetes objects, and the
Prometheus Operator's when the spec asks for them), <chart>.agent-values.yaml (the Helm values of the agent's
chart, --chart or the spec's agent.chart, with the scrape jobs), <chart>.dashboard.json and <chart>.rules.yaml,
unless the spec turns them off, and <chart>.alertmanager.yaml when the spec names receivers, maintenance windows or
two or more locations. A file holding a Secret's values is readable by its owner only (0600). A spec
with problems prints each and writes nothing.`,
  `0 written; 1 the spec refused; 2 a mistake in the command line (a spec file that cannot be read, an
--out folder holding files synth does not write)`,
);

/** The chart's name, the first part of every file name. */
const CHART = 'probekit';

/**
 * What synth writes (cdk8s' `<chart>.k8s.yaml` and the files ProbekitApp adds beside it), and so what it may
 * replace in --out; a test keeps this in step with the files of a spec that turns everything on.
 */
export const SYNTH_OUTPUT = /^[^/]+\.(k8s\.yaml|agent-values\.yaml|dashboard\.json|rules\.yaml|alertmanager\.yaml)$/;

/** The files under `out` an earlier synth wrote, to be replaced; a UsageError when it holds anything else. */
function earlierOutput(out: string, given: string): string[] {
  if (!existsSync(out)) return [];
  if (!statSync(out).isDirectory()) throw new UsageError(`--out ${given}: is a file; give a folder (it is made when missing)`);
  const entries = readdirSync(out);
  const foreign = entries.filter((name) => !SYNTH_OUTPUT.test(name) || !statSync(join(out, name)).isFile());
  if (foreign.length > 0) {
    throw new UsageError(
      `--out ${given}: holds ${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ` and ${foreign.length - 3} more` : ''}, which synth does not write; synth replaces the folder's files, so give a new or empty folder, or one only synth writes to`,
    );
  }
  return entries;
}

/**
 * The spec of --spec, else of PROBEKIT_SPEC, else the documented example; `named` names a problem found past parsing
 * after it (with its line, for a file).
 */
function chosenSpec(io: CliIo, given: string | undefined, agentChart: AgentChartName | undefined): { spec: Spec; named: (error: ProblemsError) => ProblemsError } {
  const fromEnv = io.env.PROBEKIT_SPEC;
  const file = given ?? (fromEnv === '' ? undefined : fromEnv);
  if (file === undefined) {
    io.stderr('note: no --spec (nor PROBEKIT_SPEC): synthesizing the documented example\n');
    const source = 'documented example';
    const input = agentChart === undefined ? documentedExample : withAgentChart(documentedExample, agentChart);
    return { spec: parseSpec(input, { source, env: io.env }), named: (error) => error.namedAfter(source) };
  }
  try {
    const loaded = readSpecFile(file, { env: io.env, cwd: io.cwd, namedBy: given === undefined ? `PROBEKIT_SPEC=${file}` : `--spec ${file}`, agentChart });
    return { spec: loaded.spec, named: loaded.namedAfterFile };
  } catch (error) {
    // A path that leads nowhere is a mistake in the command line; a spec with problems is a failure.
    throw error instanceof SpecFileError ? new UsageError(error.message) : error;
  }
}

/** --chart's value, checked as the spec's agent.chart is, in the same words. */
function chartFrom(value: string | undefined): AgentChartName | undefined {
  if (value === undefined) return undefined;
  const chart = agentSchema.shape.chart.safeParse(value, { reportInput: true });
  if (chart.success) return chart.data;
  throw new UsageError(`--chart ${value}: ${schemaProblems(agentSchema.shape.chart, chart.error.issues)[0]!.message}`);
}

/** Moves `from` to `to`, copying (mode kept) where they are on different filesystems (--out a mount point). */
function move(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    copyFileSync(from, to);
    rmSync(from);
  }
}

/** Synthesizes `spec` into `out`: staged beside it, moved in once whole. Returns the names of the files written. */
export function synthesizeInto(out: string, spec: Spec, env: CliIo['env'], replaced: readonly string[], warn: (line: string) => void = () => {}): string[] {
  mkdirSync(dirname(out), { recursive: true });
  const staging = mkdtempSync(join(dirname(out), `.${basename(out)}.synth-`));
  try {
    // Loaded here, not with the dispatcher: cdk8s is a peer dependency, absent where only the other commands are
    // used (the skills server's image installs no peers), and every command line loads this module.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { ProbekitApp, ProbekitChart } = require('../cdk8s/probekit') as typeof import('../cdk8s/probekit');
    const app = new ProbekitApp({ outdir: staging });
    new ProbekitChart(app, CHART, { spec, env });
    app.synth();
    app.warnings.forEach((warning) => warn(`warning: ${warning}\n`));
    const written = readdirSync(staging).sort();
    if (!existsSync(out)) {
      renameSync(staging, out);
      return written;
    }
    // An old file is removed before its new one comes: a Secret's values are never in a file opened up earlier.
    for (const name of replaced) rmSync(join(out, name));
    for (const name of written) move(join(staging, name), join(out, name));
    return written;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

async function run(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(args, FLAGS, HELP);
  const out = resolve(io.cwd, values.out);
  const replaced = earlierOutput(out, values.out);
  const { spec, named } = chosenSpec(io, values.spec, chartFrom(values.chart));
  let written: string[];
  try {
    written = synthesizeInto(out, spec, io.env, replaced, io.stderr);
  } catch (error) {
    // What only the cluster form refuses (a unix job) is found past parsing; it is named after the spec file as well.
    throw error instanceof ProblemsError ? named(error) : error;
  }
  for (const name of written) io.stdout(`${join(values.out, name)}\n`);
  const sized = spec.exporter.sizedFromTargets;
  if (sized) {
    const { probesPerSecond, cores, minReplicas, maxReplicas, cpu } = sized;
    io.stderr(`note: exporter sized from its targets: ${Math.round(probesPerSecond)} probes a second, ${cores.toFixed(2)} cores: ${minReplicas} to ${maxReplicas} replicas of ${cpu}\n`);
  }
  return 0;
}

export const synthCommand: Command = {
  summary: "cluster form: write the spec's manifests, agent values, dashboard and alert rules",
  usage: `usage: ${HELP}\n`,
  run,
};
