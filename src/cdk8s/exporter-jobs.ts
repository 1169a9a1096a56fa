/**
 * The jobs a construct holds for one exporter (AgentValues' scrape jobs, Probes' Probe objects), read as the spec
 * reads a job: the same parser, defaults and problems. A job is checked when it is added, against the modules the
 * exporter has then; a module the exporter lacks may still be added (`addModule` after the job), so that job is
 * checked again at synth, and every problem is thrown as a ProblemsError named after the construct's path. A target's
 * own module fields make a module (merged onto the job's, see ../model/targets.ts), which is added to the exporter.
 */
import { ProblemsError, type FieldPath, type Problem } from '@probekit/exporter';
import type { Construct } from 'constructs';
import { DEFAULTS, type Job, type JobInput, type ScrapeJob } from '../model';
import { withDurationSuggestions } from '../model/problems';
import { TargetModules } from '../model/targets';
import { checkJob, parseJob, recordCheckedJob, wasCheckedAgainst } from '../model/validate';
import type { BlackboxExporter } from './blackbox-exporter';

/** The problems of jobs that would collide (job names, object names), as the spec's checks of its whole list give them. */
type CollisionCheck = (jobs: ReadonlyArray<readonly [number, ScrapeJob]>) => Problem[];

export class ExporterJobs {
  private readonly jobs: Job[] = [];
  /** Jobs whose every module the exporter had when they were added: modules are never replaced, so they stay right. */
  private readonly settled = new WeakSet<Job>();

  constructor(
    private readonly owner: Construct,
    private readonly exporter: BlackboxExporter,
    private readonly collisions: CollisionCheck,
  ) {
    owner.node.addValidation({
      validate: () => {
        this.check();
        return [];
      },
    });
  }

  /** How many jobs it holds: the index the next one gets. */
  get count(): number {
    return this.jobs.length;
  }

  /** Reads, checks and keeps one more job; throws a ProblemsError naming `jobs[<index>]` when it has problems. */
  add(input: JobInput): Job {
    const index = this.jobs.length;
    const path: FieldPath = ['jobs', index];
    if (wasCheckedAgainst(input, this.exporter.modules)) {
      // A spec's job, checked with these modules already: only the names across this construct's jobs are new.
      const listed = [...this.jobs, input].map((each, at) => [at, each] as const);
      this.throwIfAny(this.collisions(listed).filter((problem) => problem.path[1] === index));
      this.jobs.push(input);
      this.settled.add(input);
      return input;
    }
    const problems: Problem[] = [];
    const targetModules = new TargetModules(this.exporter.modules);
    const job = parseJob(input, path, DEFAULTS.alerts.thresholds, problems, this.exporter.modules, targetModules);
    if (job !== undefined && problems.length === 0) {
      // The modules the targets' own fields make go to the exporter, which writes them into its config file.
      for (const [name, module] of Object.entries(targetModules.generated)) this.exporter.addModule(name, module);
    }
    if (job !== undefined) {
      // A module the exporter lacks yet counts as defined here; synth reports it if it is still missing then.
      problems.push(...checkJob(job, path, this.exporter.modules, new Set([...Object.keys(this.exporter.modules), job.module])));
      const listed = [...this.jobs, job].map((each, at) => [at, each] as const);
      problems.push(...this.collisions(listed).filter((problem) => problem.path[1] === index));
    }
    this.throwIfAny(withDurationSuggestions(problems, { jobs: { [index]: input } }));
    this.jobs.push(job!);
    const modules = this.exporter.modules;
    if ([job!.module, ...job!.targets.map((target) => target.module)].every((name) => name in modules)) {
      this.settled.add(job!);
      recordCheckedJob(job!, modules);
    }
    return job!;
  }

  /** The jobs, once every module they name is on the exporter (checked again, as at synth). */
  get all(): readonly Job[] {
    this.check();
    return this.jobs;
  }

  /** Every job against the exporter's modules as they are now. */
  private check(): void {
    const modules = this.exporter.modules;
    const defined = new Set(Object.keys(modules));
    this.throwIfAny(this.jobs.flatMap((job, index) => (this.settled.has(job) ? [] : checkJob(job, ['jobs', index], modules, defined))));
  }

  private throwIfAny(problems: readonly Problem[]): void {
    if (problems.length > 0) throw new ProblemsError(problems, this.owner.node.path);
  }
}
