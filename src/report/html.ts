/**
 * The report as one self-contained HTML page, to mail or publish as a static status page: inline CSS and SVG, no
 * script, font or image from anywhere. A summary of the window, then per job its uptime, error budget, a timeline
 * bar per target (a bucket per bar, green when every probe succeeded) and its incidents.
 */
import { certificate, day, duration, percent, probeTime, when } from './format';
import type { JobReport, Report, TargetReport } from './model';

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** A bucket's or a figure's state, for its colour: every probe good, some failed, below the objective, no data. */
type Health = 'up' | 'degraded' | 'down' | 'none';

/** Below this uptime a bucket is drawn red when the job has no objective. */
const DEFAULT_THRESHOLD = 99;

/** A bucket's state: green only when every probe in it succeeded. */
function health(uptimePercent: number | null, slo: number | null): Health {
  if (uptimePercent === null) return 'none';
  if (uptimePercent >= 100) return 'up';
  return uptimePercent >= (slo ?? DEFAULT_THRESHOLD) ? 'degraded' : 'down';
}

/** An uptime figure's state: green when it meets the job's objective (or is 100% without one). */
function figureHealth(uptimePercent: number, slo: number | null): Health {
  return slo !== null && uptimePercent >= slo ? 'up' : health(uptimePercent, slo);
}

const STYLE = `
:root { --bg: #f6f8fa; --card: #fff; --text: #1f2328; --muted: #656d76; --line: #d8dee4; --up: #2da44e; --degraded: #d4a72c; --down: #cf222e; --none: #d0d7de; --accent: #0969da; }
@media (prefers-color-scheme: dark) { :root { --bg: #0d1117; --card: #161b22; --text: #e6edf3; --muted: #8d96a0; --line: #30363d; --up: #3fb950; --degraded: #d29922; --down: #f85149; --none: #30363d; --accent: #4493f8; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 14px/1.5 -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, "DejaVu Sans", sans-serif; }
main { max-width: 1120px; margin: 0 auto; padding: 32px 24px 48px; }
header { display: flex; justify-content: space-between; align-items: flex-end; gap: 24px; flex-wrap: wrap; margin-bottom: 24px; }
.eyebrow { color: var(--muted); font-size: 13px; font-weight: 600; }
h1 { font-size: 28px; line-height: 1.2; margin: 4px 0 6px; }
.window { color: var(--muted); margin: 0; }
.overall { display: inline-flex; align-items: center; gap: 10px; padding: 8px 14px; border-radius: 999px; font-weight: 600; background: var(--card); border: 1px solid var(--line); }
.dot { width: 10px; height: 10px; border-radius: 50%; display: inline-block; flex: none; }
.dot.up { background: var(--up); } .dot.degraded { background: var(--degraded); } .dot.down { background: var(--down); } .dot.none { background: var(--none); }
.cards { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 12px; margin-bottom: 28px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; }
.card .label { color: var(--muted); font-size: 12px; }
.card .value { font-size: 24px; font-weight: 650; font-variant-numeric: tabular-nums; }
.card .note { color: var(--muted); font-size: 12px; }
section.job { background: var(--card); border: 1px solid var(--line); border-radius: 10px; margin-bottom: 24px; overflow: hidden; }
.job-head { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 20px; padding: 16px 20px; border-bottom: 1px solid var(--line); }
.job-head h2 { font-size: 18px; margin: 0; flex: 1 1 auto; }
.figure { color: var(--muted); font-size: 13px; }
.figure b { color: var(--text); font-variant-numeric: tabular-nums; }
.budget { display: flex; align-items: center; gap: 8px; }
.budget svg { width: 120px; height: 8px; }
table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }
th { text-align: left; font-size: 12px; font-weight: 600; color: var(--muted); padding: 10px 12px; border-bottom: 1px solid var(--line); white-space: nowrap; }
td { padding: 10px 12px; border-bottom: 1px solid var(--line); vertical-align: middle; }
tr:last-child td { border-bottom: none; }
th.num, td.num { text-align: right; white-space: nowrap; }
td.name { width: 40%; }
.phase { color: var(--muted); font-size: 12px; white-space: nowrap; }
.target { display: flex; align-items: center; gap: 8px; }
.instance { font-family: ui-monospace, SFMono-Regular, "DejaVu Sans Mono", Menlo, monospace; font-size: 12px; word-break: break-all; }
.location { color: var(--muted); font-size: 12px; }
table.targets tr.figures td { border-bottom: none; padding-bottom: 4px; }
table.targets tbody + tbody tr.figures td { border-top: 1px solid var(--line); }
table.targets tr.chart td { padding-top: 2px; padding-bottom: 12px; }
svg.timeline { display: block; width: 100%; height: 24px; border-radius: 3px; }
svg.timeline rect { stroke: var(--card); stroke-width: 2px; vector-effect: non-scaling-stroke; }
svg.timeline rect.up { fill: var(--up); } svg.timeline rect.degraded { fill: var(--degraded); } svg.timeline rect.down { fill: var(--down); } svg.timeline rect.none { fill: var(--none); }
.axis { display: flex; justify-content: space-between; color: var(--muted); font-size: 11px; margin-top: 3px; }
.uptime { font-weight: 650; }
.uptime.up { color: var(--up); } .uptime.degraded { color: var(--degraded); } .uptime.down { color: var(--down); }
.muted { color: var(--muted); }
details { border-top: 1px solid var(--line); }
details summary { cursor: pointer; padding: 12px 20px; font-weight: 600; }
details table { margin-bottom: 8px; }
details td, details th { padding-left: 20px; }
.ongoing { color: var(--down); font-weight: 600; }
.none-yet { padding: 12px 20px; color: var(--muted); border-top: 1px solid var(--line); margin: 0; }
footer { color: var(--muted); font-size: 12px; margin-top: 8px; }
@media (max-width: 760px) { .cards { grid-template-columns: repeat(2, minmax(0, 1fr)); } }
@media print { body { background: #fff; } section.job, .card { break-inside: avoid; } }
`;

/**
 * The target's bar: one rect per bucket, with a tooltip of its time and uptime. The bar stretches to the page's
 * width; the buckets are kept apart by a 2 px line of the card's colour, whatever their number.
 */
function timeline(report: Report, target: TargetReport): string {
  const from = Date.parse(report.from);
  const rects = target.timeline.map((value, index) => {
    const start = new Date(from + index * report.bucketSeconds * 1000).toISOString();
    const end = new Date(from + (index + 1) * report.bucketSeconds * 1000).toISOString();
    const tip = `${when(start)} to ${when(end)}: ${value === null ? 'no data' : `${percent(value)} up`}`;
    return `<rect class="${health(value, target.slo)}" x="${index}" y="0" width="1" height="1"><title>${escape(tip)}</title></rect>`;
  });
  return `<svg class="timeline" viewBox="0 0 ${target.timeline.length} 1" preserveAspectRatio="none" role="img" aria-label="${escape(`uptime of ${target.instance} per ${duration(report.bucketSeconds)}`)}">${rects.join('')}</svg>`;
}

/** The error budget's state: plenty left, some, spent. */
function budgetHealth(remaining: number): Health {
  return remaining > 25 ? 'up' : remaining > 0 ? 'degraded' : 'down';
}

/** The error budget left as a small bar: full at 100%, empty at or below 0. */
function budgetBar(remaining: number): string {
  const filled = Math.max(0, Math.min(100, remaining));
  const state = budgetHealth(remaining);
  return `<svg viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true"><rect width="100" height="8" rx="4" fill="var(--none)"/><rect width="${filled.toFixed(2)}" height="8" rx="4" fill="var(--${state})"/></svg>`;
}

/** A timeline's edge, short: the day for a window of days, else the time of day. */
function axisLabel(isoTime: string, windowSeconds: number): string {
  return windowSeconds >= 2 * 86_400 ? day(isoTime).split(' ').slice(0, 2).join(' ') : isoTime.slice(11, windowSeconds < 600 ? 19 : 16);
}

function currentState(target: TargetReport): Health {
  if (target.incidents.some((incident) => incident.end === null)) return 'down';
  return target.samples === 0 ? 'none' : 'up';
}

/** The targets table's columns: heading, and whether it holds figures (right-aligned). */
const COLUMNS: ReadonlyArray<readonly [string, boolean]> = [
  ['Target', false],
  ['Uptime', true],
  ['Incidents', true],
  ['Probe time p50 / p95', true],
  ['Certificate', true],
  ['Error budget left', true],
];

function targetRow(report: Report, job: JobReport, target: TargetReport): string {
  const location = job.locations.length > 1 && target.location !== undefined ? ` <span class="location">from ${escape(target.location)}</span>` : '';
  const downtime = target.incidents.reduce((sum, incident) => sum + incident.seconds, 0);
  const state = currentState(target);
  return `<tbody class="target-rows" data-target="${escape(target.instance)}"><tr class="figures">
<td class="name"><div class="target"><span class="dot ${state}" title="${state === 'down' ? 'down at the window\u2019s end' : 'up at the window\u2019s end'}"></span><span class="instance">${escape(target.instance)}</span>${location}</div></td>
<td class="num"><span class="uptime ${figureHealth(target.uptimePercent, target.slo)}">${percent(target.uptimePercent)}</span></td>
<td class="num">${target.incidents.length === 0 ? '<span class="muted">none</span>' : `${target.incidents.length} <span class="muted">(${duration(downtime)})</span>`}</td>
<td class="num">${target.durationSeconds === null ? '<span class="muted">–</span>' : `${probeTime(target.durationSeconds.p50)} <span class="muted">/ ${probeTime(target.durationSeconds.p95)}</span>`}${target.slowestPhase === null ? '' : `<div class="phase">slowest: ${escape(target.slowestPhase.phase)} ${probeTime(target.slowestPhase.seconds)}</div>`}</td>
<td class="num">${target.certificateDaysLeft === null ? '<span class="muted">–</span>' : certificate(target.certificateDaysLeft)}</td>
<td class="num">${target.errorBudgetRemainingPercent === null ? '<span class="muted">–</span>' : `<span class="uptime ${budgetHealth(target.errorBudgetRemainingPercent)}">${percent(target.errorBudgetRemainingPercent, 1)}</span>`}</td>
</tr>
<tr class="chart"><td colspan="${COLUMNS.length}">${timeline(report, target)}<div class="axis"><span>${escape(axisLabel(report.from, report.windowSeconds))}</span><span>uptime per ${escape(duration(report.bucketSeconds))}</span><span>${escape(axisLabel(report.to, report.windowSeconds))}</span></div></td></tr></tbody>`;
}

function incidentList(job: JobReport, targets: readonly TargetReport[]): string {
  const incidents = targets.flatMap((target) => target.incidents.map((incident) => ({ target, incident }))).sort((a, b) => b.incident.start.localeCompare(a.incident.start));
  if (incidents.length === 0) return '<p class="none-yet">No incidents in this window.</p>';
  const rows = incidents.map(
    ({ target, incident }) =>
      `<tr><td><span class="instance">${escape(target.instance)}</span>${job.locations.length > 1 && target.location !== undefined ? ` <span class="location">from ${escape(target.location)}</span>` : ''}</td><td>${when(incident.start)}</td><td>${incident.end === null ? '<span class="ongoing">ongoing</span>' : when(incident.end)}</td><td class="num">${duration(incident.seconds)}</td></tr>`,
  );
  return `<details open><summary>Incidents (${incidents.length}), newest first</summary><table><thead><tr><th>Target</th><th>Started</th><th>Ended</th><th class="num">Duration</th></tr></thead><tbody>${rows.join('')}</tbody></table></details>`;
}

function jobSection(report: Report, job: JobReport): string {
  const targets = report.targets.filter((target) => target.job === job.job);
  const objective =
    job.slo === null || job.errorBudgetRemainingPercent === null
      ? '<span class="figure">no objective set</span>'
      : `<span class="figure">objective <b>${job.slo}%</b></span><span class="figure budget">error budget left <b class="uptime ${budgetHealth(job.errorBudgetRemainingPercent)}">${percent(job.errorBudgetRemainingPercent, 1)}</b>${budgetBar(job.errorBudgetRemainingPercent)}</span>`;
  return `<section class="job" data-job="${escape(job.job)}">
<div class="job-head"><h2>${escape(job.job)}</h2><span class="figure">uptime <b class="uptime ${figureHealth(job.uptimePercent, job.slo)}">${percent(job.uptimePercent)}</b></span><span class="figure"><b>${job.targets}</b> target${job.targets === 1 ? '' : 's'}</span>${objective}</div>
<table class="targets"><thead><tr>${COLUMNS.map(([name, numeric]) => `<th${numeric ? ' class="num"' : ''}>${name}</th>`).join('')}</tr></thead>
${targets.map((target) => targetRow(report, job, target)).join('\n')}</table>
${incidentList(job, targets)}
</section>`;
}

/** The spec's targets without series in the window, in a section of their own after the jobs. */
function unseenSection(report: Report): string {
  if (report.unseen.length === 0) return '';
  const count = report.unseen.length;
  const rows = report.unseen.map((target) => `<tr><td>${escape(target.job)}</td><td><span class="instance">${escape(target.instance)}</span></td></tr>`);
  return `<section class="job unseen">
<div class="job-head"><h2>Not seen in this window</h2><span class="figure"><b>${count}</b> target${count === 1 ? '' : 's'} of the spec without a probe: not scraped yet, renamed, or ${count === 1 ? 'its' : 'their'} agent not running; left out of every figure above</span></div>
<table><thead><tr><th>Job</th><th>Target</th></tr></thead><tbody>${rows.join('')}</tbody></table>
</section>`;
}

export interface HtmlOptions {
  /** The page's heading. @default Uptime report */
  readonly title?: string;
}

export function renderHtml(report: Report, options: HtmlOptions = {}): string {
  const title = options.title ?? 'Uptime report';
  const targets = report.targets;
  const overall = targets.reduce((sum, target) => sum + target.uptimePercent, 0) / targets.length;
  const incidents = targets.reduce((sum, target) => sum + target.incidents.length, 0);
  const open = targets.filter((target) => currentState(target) === 'down').length;
  const downtime = targets.reduce((sum, target) => sum + target.incidents.reduce((inner, incident) => inner + incident.seconds, 0), 0);
  const affected = targets.filter((target) => target.incidents.length > 0).length;
  const status: Health = open > 0 ? 'down' : incidents > 0 ? 'degraded' : 'up';
  const statusText = open > 0 ? `${open} target${open === 1 ? '' : 's'} down now` : 'All targets up now';
  const card = (label: string, value: string, note: string) => `<div class="card"><div class="label">${label}</div><div class="value">${value}</div><div class="note">${note}</div></div>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="probekit report">
<title>${escape(title)}: ${escape(day(report.from))} to ${escape(day(report.to))}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<header>
<div><div class="eyebrow">${report.jobs.length} job${report.jobs.length === 1 ? '' : 's'} · ${targets.length} target${targets.length === 1 ? '' : 's'}${report.unseen.length === 0 ? '' : ` (${report.unseen.length} more not seen)`} · the last ${escape(report.window)}</div><h1>${escape(title)}</h1><p class="window">${escape(day(report.from))} to ${escape(day(report.to))}</p></div>
<div class="overall"><span class="dot ${status === 'degraded' ? 'up' : status}"></span>${statusText}</div>
</header>
<div class="cards">
${card('Uptime', `<span class="uptime ${figureHealth(overall, null)}">${percent(overall)}</span>`, 'mean over the targets')}
${card('Incidents', String(incidents), `${affected} of ${targets.length} target${targets.length === 1 ? '' : 's'} affected`)}
${card('Downtime', duration(downtime), 'summed over the targets')}
${card('Checks', report.targets.reduce((sum, target) => sum + target.samples, 0).toLocaleString('en-US'), 'probes recorded in the window')}
</div>
${report.jobs.map((job) => jobSection(report, job)).join('\n')}
${unseenSection(report)}
<footer>Uptime is Prometheus' <code>avg_over_time(probe_success[${escape(report.window)}])</code> at the window's end; an incident runs from the first failed probe to the first successful one after it. Written by probekit report from ${escape(report.prometheus)} at ${escape(when(report.generatedAt))}.</footer>
</main>
</body>
</html>
`;
}
