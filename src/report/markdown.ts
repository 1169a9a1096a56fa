/** The report as Markdown: a summary line and a table per job, then its incidents, for a pull request or a wiki. */
import { certificate, duration, percent, probeTime, when } from './format';
import type { JobReport, Report, TargetReport } from './model';

/** A table cell: pipes escaped, one line. */
function cell(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/[\r\n]+/g, ' ');
}

function row(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}

/** The target as the tables name it: its instance, with its location where the job probes from several. */
function targetName(target: TargetReport, job: JobReport): string {
  return job.locations.length > 1 && target.location !== undefined ? `${target.instance} (${target.location})` : target.instance;
}

function budget(value: number | null): string {
  return value === null ? '–' : percent(value, 1);
}

function jobSection(job: JobReport, targets: readonly TargetReport[]): string {
  const objective = job.slo === null ? '' : `, objective ${job.slo}%, ${budget(job.errorBudgetRemainingPercent)} of the error budget left`;
  const lines = [
    `## ${cell(job.job)}`,
    '',
    `${percent(job.uptimePercent)} uptime over ${job.targets} target${job.targets === 1 ? '' : 's'}${objective}; ${job.incidents} incident${job.incidents === 1 ? '' : 's'}, ${duration(job.downtimeSeconds)} down in all.`,
    '',
    row(['Target', 'Uptime', 'Incidents', 'Downtime', 'p50 / p95', 'Slowest phase', 'Certificate', 'Error budget left']),
    row(['---', '---:', '---:', '---:', '---:', '---', '---:', '---:']),
    ...targets.map((target) =>
      row([
        cell(targetName(target, job)),
        percent(target.uptimePercent),
        String(target.incidents.length),
        duration(target.incidents.reduce((sum, incident) => sum + incident.seconds, 0)),
        target.durationSeconds === null ? '–' : `${probeTime(target.durationSeconds.p50)} / ${probeTime(target.durationSeconds.p95)}`,
        target.slowestPhase === null ? '–' : `${cell(target.slowestPhase.phase)} (${probeTime(target.slowestPhase.seconds)})`,
        target.certificateDaysLeft === null ? '–' : certificate(target.certificateDaysLeft),
        budget(target.errorBudgetRemainingPercent),
      ]),
    ),
  ];
  const incidents = targets.flatMap((target) => target.incidents.map((incident) => ({ target, incident }))).sort((a, b) => a.incident.start.localeCompare(b.incident.start));
  if (incidents.length > 0) {
    lines.push(
      '',
      `### Incidents of ${cell(job.job)}`,
      '',
      row(['Target', 'Start', 'End', 'Duration']),
      row(['---', '---', '---', '---:']),
      ...incidents.map(({ target, incident }) => row([cell(targetName(target, job)), when(incident.start), incident.end === null ? 'ongoing' : when(incident.end), duration(incident.seconds)])),
    );
  }
  return lines.join('\n');
}

/** The spec's targets without series in the window, as a last section; none when every target was seen. */
function unseenSection(report: Report): string[] {
  if (report.unseen.length === 0) return [];
  const count = report.unseen.length;
  return [
    [
      '## Not seen in the window',
      '',
      `${count} target${count === 1 ? '' : 's'} of the spec ha${count === 1 ? 's' : 've'} no probe_success series from ${when(report.from)} to ${when(report.to)}: not scraped yet, renamed, or ${count === 1 ? 'its' : 'their'} agent not running. ${count === 1 ? 'It is' : 'They are'} left out of the figures above.`,
      '',
      row(['Job', 'Target']),
      row(['---', '---']),
      ...report.unseen.map((target) => row([cell(target.job), cell(target.instance)])),
    ].join('\n'),
  ];
}

export function renderMarkdown(report: Report): string {
  const header = `# Uptime from ${when(report.from)} to ${when(report.to)} (${report.window})`;
  const sections = report.jobs.map((job) =>
    jobSection(
      job,
      report.targets.filter((target) => target.job === job.job),
    ),
  );
  const footer = `Uptime is Prometheus' avg_over_time(probe_success[${report.window}]) at the window's end; an incident runs from the first failed probe to the first successful one after it. Written by probekit report from ${report.prometheus} at ${when(report.generatedAt)}.`;
  return `${[header, ...sections, ...unseenSection(report), footer].join('\n\n')}\n`;
}
