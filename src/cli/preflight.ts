/**
 * `probekit test` (named preflight here: the published package holds no file named like a test): every target of the spec's jobs (or of those named) probed from this machine, in this
 * process, through the exporter's own probers with the target's module (the job's, or its own), before anything is deployed. Progress goes
 * to stderr, the report (table, JSON or JUnit) to stdout. Exit status: 0 every probe succeeded, 1 one failed,
 * 2 a bad spec or command line, 130 stopped by Ctrl-C (the targets done are reported, the rest marked not run).
 */
import { DURATION_HINT, parseDuration, probeTarget, ProblemsError, type ModuleInput, type Problem, type ProberName } from '@probekit/exporter';
import { closestName, readSpecFile, type Job, type MaintenanceWindow, type Spec } from '../model';
import { windowIsOn, windowSchedule } from '../render/alertmanager-config';
import { moduleWithSecretValues } from '../render/exporter-config';
import { helpText, parseFlags, usageLine, UsageError, type CliIo, type Command, type Flags } from './command';
import { internalErrorNote, OUTPUT_FORMATS, probeDetails, progressBar, progressLine, reportText, summarize, type OutputFormat, type TargetResult } from './preflight-report';

export const DEFAULT_CONCURRENCY = 16;

const FLAGS = {
  spec: { type: 'string', value: 'FILE', defaultText: 'the PROBEKIT_SPEC environment variable', help: 'the spec whose targets are probed' },
  job: { type: 'string', value: 'NAME', multiple: true, defaultText: 'every job', help: 'only this job' },
  target: { type: 'string', value: 'T', multiple: true, defaultText: 'every target of the jobs chosen', help: 'only this target' },
  concurrency: { type: 'string', value: 'N', default: String(DEFAULT_CONCURRENCY), help: 'probes at once' },
  timeout: { type: 'string', value: 'D', defaultText: "each job's scrapeTimeout", help: `the scrape timeout each probe runs under, ${DURATION_HINT}; a module's own shorter timeout still applies` },
  output: { type: 'string', value: 'FORMAT', default: 'table', help: `${OUTPUT_FORMATS.join(', ')}, on stdout; progress goes to stderr` },
} as const satisfies Flags;

const HELP = helpText(
  usageLine('probekit test', FLAGS),
  FLAGS,
  `Probes every target of every job of the spec (or of the jobs named) from this machine, through the exporter's
own probers with the job's module, as the exporter will once deployed. Secret header references are read as
synth reads them (fromEnv: the variable must be set).`,
  '0 every probe succeeded; 1 a probe failed; 2 a mistake in the spec or the command line; 130 stopped by Ctrl-C',
);

/** Ctrl-C: the probes in flight end at once (interrupted), the rest are not started. */
export const INTERRUPTED_EXIT_CODE = 130;

interface PlannedProbe {
  readonly job: Job;
  readonly target: string;
  /** The target's module's name (the job's, or its own) and the module itself. */
  readonly moduleName: string;
  readonly module: ModuleInput;
  readonly prober: ProberName;
  readonly scrapeTimeoutSeconds: number;
}

function positiveInteger(value: string, flag: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new UsageError(`--${flag} ${value}: give a whole number of 1 or more`);
  return number;
}

function durationSeconds(value: string, flag: string): number {
  const milliseconds = parseDuration(value);
  if (milliseconds === undefined || milliseconds <= 0) throw new UsageError(`--${flag} ${value}: give ${DURATION_HINT}`);
  return milliseconds / 1000;
}

/** The jobs named by --job, each checked to exist (a typo names the likely job); every job when none is named. */
function chosenJobs(spec: Spec, names: readonly string[]): Job[] {
  if (names.length === 0) return [...spec.jobs];
  const all = spec.jobs.map((job) => job.name);
  return names.map((name) => {
    const job = spec.jobs.find((candidate) => candidate.name === name);
    if (job) return job;
    const suggestion = closestName(name, all);
    throw new UsageError(`--job ${name}: the spec has no such job; ${suggestion ? `did you mean "${suggestion}"? ` : ''}its jobs are ${all.join(', ')}`);
  });
}

/** Every probe to run: each target of the chosen jobs (only those named by --target, each of which must be there). */
function plan(spec: Spec, jobs: readonly Job[], targets: readonly string[], timeoutSeconds: number | undefined, env: CliIo['env']): PlannedProbe[] {
  const wanted = new Set(targets);
  const known = new Set(jobs.flatMap((job) => job.targets.map(({ target }) => target)));
  const missing = targets.filter((target) => !known.has(target));
  if (missing.length > 0) throw new UsageError(`--target ${missing[0]}: not a target of ${jobs.length === spec.jobs.length ? 'any job' : 'the jobs chosen'}; give a target as the spec writes it`);
  const chosen = jobs.flatMap((job) => job.targets.filter(({ target }) => wanted.size === 0 || wanted.has(target)).map((target) => ({ job, target })));
  const modules = new Map<string, ModuleInput>();
  const problems: Problem[] = [];
  for (const { target } of chosen) {
    if (modules.has(target.module)) continue;
    try {
      modules.set(target.module, moduleWithSecretValues(target.module, spec.modules[target.module]!, env));
    } catch (error) {
      if (!(error instanceof ProblemsError)) throw error;
      problems.push(...error.problems);
    }
  }
  if (problems.length > 0) throw new ProblemsError(problems);
  return chosen.map(({ job, target }) => {
    const module = modules.get(target.module)!;
    return { job, target: target.target, moduleName: target.module, module, prober: module.prober as ProberName, scrapeTimeoutSeconds: timeoutSeconds ?? parseDuration(job.scrapeTimeout)! / 1000 };
  });
}

/** Resolves when the user asks to stop (Ctrl-C, SIGTERM, or the caller's `stopped`); `release` removes the listeners. */
function stopRequest(io: CliIo): { readonly requested: Promise<void>; release(): void } {
  if (io.stopped) return { requested: io.stopped, release: () => undefined };
  let onSignal: () => void = () => undefined;
  const requested = new Promise<void>((resolve) => {
    onSignal = () => resolve();
  });
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    requested,
    release: () => {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    },
  };
}

async function probeOne(planned: PlannedProbe, signal: AbortSignal, cwd: string): Promise<TargetResult> {
  const base = { job: planned.job.name, target: planned.target, module: planned.moduleName, prober: planned.prober };
  const result = await probeTarget(planned.moduleName, planned.module, planned.target, { scrapeTimeoutSeconds: planned.scrapeTimeoutSeconds, signal, directory: cwd });
  const note = internalErrorNote(result);
  return {
    ...base,
    skipped: false,
    success: result.success,
    durationSeconds: result.durationSeconds,
    ...(result.failure ? { failure: result.failure } : {}),
    ...(note === undefined ? {} : { note }),
    details: probeDetails(planned.prober, result, Date.now() / 1000),
  };
}

/** Runs the plan, at most `concurrency` probes at once, reporting each as it finishes; stops when `stop` fires. */
async function runPlan(probes: readonly PlannedProbe[], concurrency: number, stop: AbortController, cwd: string, finished: (result: TargetResult) => void): Promise<TargetResult[]> {
  const results: Array<TargetResult | undefined> = probes.map(() => undefined);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < probes.length && !stop.signal.aborted) {
      const index = next;
      next += 1;
      results[index] = await probeOne(probes[index]!, stop.signal, cwd);
      finished(results[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, probes.length) }, worker));
  return probes.map(
    (planned, index) =>
      results[index] ?? { job: planned.job.name, target: planned.target, module: planned.moduleName, prober: planned.prober, skipped: true, success: false, durationSeconds: 0, details: {} },
  );
}

/** A note for each chosen job inside a maintenance window now: a failure found here would not page. */
export function maintenanceNotes(windows: readonly MaintenanceWindow[], jobs: readonly Job[], at: Date): string[] {
  return windows
    .filter((window) => windowIsOn(window, at))
    .flatMap((window) =>
      jobs
        .filter((job) => window.jobs.includes(job.name))
        .map(
          (job) =>
            `note: job ${job.name}${window.targets ? ` (${window.targets.join(', ')})` : ''} is inside maintenance window ${window.name} (${windowSchedule(window)}): its alerts fire in Prometheus, and Alertmanager delivers none of them until the window ends\n`,
        ),
    );
}

async function run(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(args, FLAGS, HELP);
  const specFile = values.spec ?? io.env.PROBEKIT_SPEC;
  if (specFile === undefined || specFile === '') throw new UsageError(`--spec is required (or the PROBEKIT_SPEC environment variable): ${FLAGS.spec.help}`);
  const output = values.output as OutputFormat;
  if (!OUTPUT_FORMATS.includes(output)) throw new UsageError(`--output ${values.output}: give one of ${OUTPUT_FORMATS.join(', ')}`);
  const concurrency = positiveInteger(values.concurrency, 'concurrency');
  const timeoutSeconds = values.timeout === undefined ? undefined : durationSeconds(values.timeout, 'timeout');

  let probes: PlannedProbe[];
  try {
    const { spec, namedAfterFile } = readSpecFile(specFile, { cwd: io.cwd, namedBy: values.spec === undefined ? `PROBEKIT_SPEC=${specFile}` : `--spec ${specFile}` });
    try {
      const jobs = chosenJobs(spec, values.job ?? []);
      probes = plan(spec, jobs, values.target ?? [], timeoutSeconds, io.env);
      for (const line of maintenanceNotes(spec.maintenance, jobs, new Date())) io.stderr(line);
    } catch (error) {
      // A secret header whose variable is unset is the spec's: named after its file, at the header's line.
      throw error instanceof ProblemsError ? namedAfterFile(error) : error;
    }
  } catch (error) {
    // A spec that cannot be tested is a mistake to fix before anything runs, as a command line is.
    if (error instanceof ProblemsError) throw new UsageError(error.message);
    throw error;
  }

  const stop = new AbortController();
  const stopping = stopRequest(io);
  let interrupted = false;
  void stopping.requested.then(() => {
    interrupted = true;
    stop.abort();
  });
  const started = performance.now();
  let done = 0;
  let failed = 0;
  const onTerminal = io.stderrIsTerminal === true;
  let results: TargetResult[];
  try {
    if (onTerminal) io.stderr(progressBar(0, probes.length, 0));
    results = await runPlan(probes, concurrency, stop, io.cwd, (result) => {
      done += 1;
      if (!result.success) failed += 1;
      io.stderr(onTerminal ? progressBar(done, probes.length, failed) : progressLine(result, done, probes.length));
    });
  } finally {
    stopping.release();
    // Whatever ended the run (an error too), no probe of it goes on.
    stop.abort();
  }
  if (onTerminal) io.stderr('\n');
  const summary = summarize(results, (performance.now() - started) / 1000);
  io.stdout(reportText(output, results, summary));
  if (interrupted) {
    io.stderr('stopped: the probes in flight were interrupted and the rest not run\n');
    return INTERRUPTED_EXIT_CODE;
  }
  return summary.failed > 0 ? 1 : 0;
}

export const testCommand: Command = {
  summary: "probe the spec's targets from here, through the exporter's probers, before deploying",
  usage: `usage: ${HELP}\n`,
  run: (args, io) => run(args, io),
};
