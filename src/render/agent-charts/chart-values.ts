/**
 * What every chart format shares: values with the header that says what they are for, the helm command that
 * installs them, and text that goes through the chart's `tpl`.
 */
import { stringify } from 'yaml';
import { goTemplateLiteral } from '../go-template';

/** A chart's values, and the lines of the file's header comment. */
export interface AgentChartValues<Values extends object = Record<string, unknown>> {
  readonly values: Values;
  /** Which chart they are for, how to install them, what the user still adds. */
  readonly notes: readonly string[];
}

/**
 * The values file: the notes as a comment, then the values. Each line of a note is a comment of its own: a note
 * quotes the user's names (a key, a namespace), and a line break that YAML reads as one (CR, LF, NEL, LS, PS) would
 * otherwise end the comment and start values of the user's choosing.
 */
export function agentValuesText(chartValues: AgentChartValues<object>): string {
  const header = chartValues.notes
    .flatMap((note) => note.split(/\r\n|[\r\n\u0085\u2028\u2029]/))
    .map((line) => `# ${line}\n`)
    .join('');
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
 * Every text in `value` (the scrape jobs as a list the chart writes out with `toYaml` and then passes through
 * `tpl`) written so that `tpl` prints it as it is.
 */
export function textsLiteralForTpl<T>(value: T): T {
  if (typeof value === 'string') return goTemplateLiteral(value) as T;
  if (Array.isArray(value)) return value.map(textsLiteralForTpl) as T;
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, textsLiteralForTpl(entry)])) as T;
  return value;
}
