/**
 * What every chart format shares: values with the header that says what they are for, the helm command that
 * installs them, and text that goes through the chart's `tpl`.
 */
import { stringify } from 'yaml';

/** A chart's values, and the lines of the file's header comment. */
export interface AgentChartValues<Values extends object = Record<string, unknown>> {
  readonly values: Values;
  /** Which chart they are for, how to install them, what the user still adds. */
  readonly notes: readonly string[];
}

/** The values file: the notes as a comment, then the values. */
export function agentValuesText(chartValues: AgentChartValues<object>): string {
  const header = chartValues.notes.map((note) => `# ${note}\n`).join('');
  return header + stringify(chartValues.values, { lineWidth: 0 });
}

/**
 * The helm command for values added to a release that has values of its own: both files, the user's first, so
 * that ours add to theirs (Helm merges maps; a list or a text of ours replaces theirs).
 */
export function helmCommandNote(release: string, chart: string, file: string, namespace = '<namespace>'): string {
  return `Install: helm upgrade --install ${release} ${chart} -n ${namespace} -f <your values> -f ${file}`;
}

/** The header's warning that Helm does not merge lists and texts, naming those of ours. */
export function replacedNote(keys: readonly string[]): string {
  return `Helm replaces lists and texts rather than merging them: if your own values set ${keys.join(', ')}, put ours into yours.`;
}

/**
 * Text for a value the chart passes through Helm's `tpl` (the Prometheus chart's extraScrapeConfigs, the Alloy
 * chart's configuration): a `{{` in a target or a label would start a template action, so each one is written as
 * an action that prints it.
 */
export function literalForTpl(text: string): string {
  return text.replaceAll('{{', '{{ "{{" }}');
}
