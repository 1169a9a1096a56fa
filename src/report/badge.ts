/**
 * A job's uptime as a badge in the style of shields.io's flat badges: a grey label and a coloured value, 20 px high,
 * self-contained SVG for a README or a status page. Its text is sized by textLength, so the badge keeps its
 * shape in whatever sans-serif font the viewer has.
 */
import { percent } from './format';
import type { JobReport, Report } from './model';

/** Approximate advance widths of Verdana at 11 px (the font such badges are drawn in), by character. */
const WIDTHS: Readonly<Record<string, number>> = {
  ' ': 3.9,
  '%': 12.3,
  '.': 4.0,
  '-': 4.7,
  _: 7.0,
  '(': 4.9,
  ')': 4.9,
  '/': 4.9,
  ':': 4.6,
  a: 6.7,
  b: 6.9,
  c: 5.8,
  d: 6.9,
  e: 6.6,
  f: 3.9,
  g: 6.9,
  h: 7.0,
  i: 3.0,
  j: 3.8,
  k: 6.5,
  l: 3.0,
  m: 10.7,
  n: 7.0,
  o: 6.7,
  p: 6.9,
  q: 6.9,
  r: 4.7,
  s: 5.7,
  t: 4.3,
  u: 7.0,
  v: 6.5,
  w: 9.0,
  x: 6.5,
  y: 6.5,
  z: 5.8,
};
const DIGIT_WIDTH = 7.0;
const UPPER_WIDTH = 7.5;
const OTHER_WIDTH = 7.0;

export function textWidth(text: string): number {
  let width = 0;
  for (const character of text) {
    width += WIDTHS[character] ?? (/\d/.test(character) ? DIGIT_WIDTH : /[A-Z]/.test(character) ? UPPER_WIDTH : OTHER_WIDTH);
  }
  return Math.round(width * 10) / 10;
}

/** The value's colour: green at or above the objective (or 99.9% without one), then yellow, orange, red. */
export function badgeColor(uptimePercent: number, slo: number | null): string {
  const objective = slo ?? 99.9;
  if (uptimePercent >= objective) return '#3fb34f';
  const budget = 100 - objective;
  if (uptimePercent >= objective - budget) return '#dfb317';
  if (uptimePercent >= objective - 10 * budget) return '#fe7d37';
  return '#e05d44';
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const PADDING = 6;

export function renderBadge(report: Report, job: JobReport): string {
  const label = `${job.job} uptime ${report.window}`;
  const value = percent(job.uptimePercent);
  const labelWidth = Math.round(textWidth(label) + 2 * PADDING);
  const valueWidth = Math.round(textWidth(value) + 2 * PADDING);
  const width = labelWidth + valueWidth;
  const color = badgeColor(job.uptimePercent, job.slo);
  const title = `${job.job}: ${value} uptime over ${report.window} (${report.from} to ${report.to})${job.slo === null ? '' : `, objective ${job.slo}%`}`;
  // Text is drawn at 10 times the size and scaled down, as shields does, for finer positions.
  const text = (content: string, center: number, length: number) =>
    `<text aria-hidden="true" x="${center * 10}" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" textLength="${length * 10}">${escape(content)}</text>` +
    `<text x="${center * 10}" y="140" transform="scale(.1)" fill="#fff" textLength="${length * 10}">${escape(content)}</text>`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${escape(`${label}: ${value}`)}">`,
    `<title>${escape(title)}</title>`,
    '<linearGradient id="shine" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>',
    `<clipPath id="round"><rect width="${width}" height="20" rx="3" fill="#fff"/></clipPath>`,
    `<g clip-path="url(#round)"><rect width="${labelWidth}" height="20" fill="#555"/><rect x="${labelWidth}" width="${valueWidth}" height="20" fill="${color}"/><rect width="${width}" height="20" fill="url(#shine)"/></g>`,
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" text-rendering="geometricPrecision" font-size="110">`,
    text(label, labelWidth / 2, labelWidth - 2 * PADDING),
    text(value, labelWidth + valueWidth / 2, valueWidth - 2 * PADDING),
    '</g>',
    '</svg>',
    '',
  ].join('\n');
}
