/**
 * What an Alloy configuration scrapes, worked out as Alloy works it out: each `prometheus.scrape`'s targets, taken
 * through the `discovery.relabel` they come from (its rules applied in order, as Prometheus' relabelling applies
 * them, which Alloy uses), then given the scrape's defaults as Prometheus' target population gives them (`job`,
 * the scheme, the path, the parameters of `params` that no `__param_` label overrides, `instance` from the address),
 * with the `__` labels left out of the series and the scrape URL built as Prometheus builds it. Tests compare the
 * result with what a real Prometheus reports for the equivalent scrape job (/api/v1/targets).
 */
import { AlloyReference, type AlloyBlock, type AlloyStatement, type AlloyValue } from './alloy-syntax';
import { alloyComponents, attributeOf, blocksOf } from './alloy-components';

export type Labels = Record<string, string>;

export interface ScrapedTarget {
  /** The labels every series of the target carries. */
  readonly labels: Labels;
  readonly scrapeUrl: string;
}

interface Rule {
  readonly source_labels?: readonly string[];
  readonly separator?: string;
  readonly regex?: string;
  readonly target_label?: string;
  readonly replacement?: string;
  readonly action?: string;
}

/**
 * One rule applied as Prometheus applies it; only `replace`, the action probekit writes (another one fails the test
 * that meets it rather than being read wrong). The regular expression is anchored at both ends; `$1`, `${1}` and
 * named groups in the replacement are expanded from its groups.
 */
function applyRule(labels: Labels, rule: Rule): Labels {
  const action = rule.action ?? 'replace';
  if (action !== 'replace') throw new Error(`the test's relabelling knows "replace" only, not "${action}"`);
  const value = (rule.source_labels ?? []).map((name) => labels[name] ?? '').join(rule.separator ?? ';');
  const match = new RegExp(`^(?:${rule.regex ?? '(.*)'})$`, 's').exec(value);
  if (!match || rule.target_label === undefined) return labels;
  const expand = (text: string) =>
    text.replace(/\$(?:\{(\w+)\}|(\w+))/g, (_, braced: string | undefined, bare: string | undefined) => {
      const name = braced ?? bare!;
      return (/^\d+$/.test(name) ? match[Number(name)] : match.groups?.[name]) ?? '';
    });
  const target = expand(rule.target_label);
  const replaced = expand(rule.replacement ?? '$1');
  const { [target]: _, ...rest } = labels;
  return replaced === '' ? rest : { ...rest, [target]: replaced };
}

export function relabel(labels: Labels, rules: readonly Rule[]): Labels {
  return rules.reduce(applyRule, labels);
}

/** Go's url.QueryEscape: letters, digits and -_.~ as they are, a space as +, everything else %XX. */
function queryEscape(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

export interface ScrapeSettings {
  readonly jobName: string;
  readonly metricsPath: string;
  readonly scheme: string;
  readonly params: Readonly<Record<string, readonly string[]>>;
}

/** A relabelled target as the scrape completes it: its series' labels and its URL. */
export function scrapedTarget(labels: Labels, settings: ScrapeSettings): ScrapedTarget {
  const full: Labels = { job: settings.jobName, __metrics_path__: settings.metricsPath, __scheme__: settings.scheme, ...labels };
  for (const [name, values] of Object.entries(settings.params)) if (values.length > 0 && !full[`__param_${name}`]) full[`__param_${name}`] = values[0];
  if (full.instance === undefined) full.instance = full.__address__;
  const params = new Map(Object.entries(settings.params).map(([name, values]) => [name, [...values]]));
  for (const [name, value] of Object.entries(full)) {
    if (!name.startsWith('__param_')) continue;
    const key = name.slice('__param_'.length);
    const values = params.get(key);
    if (values && values.length > 0) values[0] = value;
    else params.set(key, [value]);
  }
  const query = [...params.keys()]
    .sort()
    .flatMap((key) => params.get(key)!.map((value) => `${queryEscape(key)}=${queryEscape(value)}`))
    .join('&');
  return {
    labels: Object.fromEntries(Object.entries(full).filter(([name]) => !name.startsWith('__'))),
    scrapeUrl: `${full.__scheme__}://${full.__address__}${full.__metrics_path__}${query === '' ? '' : `?${query}`}`,
  };
}

function stringList(value: AlloyValue | undefined): string[] | undefined {
  return Array.isArray(value) ? value.map(String) : undefined;
}

function targetList(value: AlloyValue | undefined, components: Map<string, AlloyBlock>): Labels[] {
  if (value instanceof AlloyReference) {
    const [kind, name, label, field] = value.path;
    const source = components.get(`${kind}.${name}.${label}`);
    if (`${kind}.${name}` !== 'discovery.relabel' || field !== 'output' || source === undefined) throw new Error(`the test follows discovery.relabel outputs only, not ${value.toString()}`);
    const rules = blocksOf(source, 'rule').map((rule): Rule => ({
      source_labels: stringList(attributeOf(rule, 'source_labels')),
      separator: attributeOf(rule, 'separator') as string | undefined,
      regex: attributeOf(rule, 'regex') as string | undefined,
      target_label: attributeOf(rule, 'target_label') as string | undefined,
      replacement: attributeOf(rule, 'replacement') as string | undefined,
      action: attributeOf(rule, 'action') as string | undefined,
    }));
    return targetList(attributeOf(source, 'targets'), components).map((target) => relabel(target, rules));
  }
  if (!Array.isArray(value)) throw new Error('targets are neither a list nor a discovery.relabel output');
  return value.map((target) => ({ ...(target as Labels) }));
}

/** Every target of every prometheus.scrape, in the order of the configuration. */
export function alloyScrapedTargets(statements: readonly AlloyStatement[]): ScrapedTarget[] {
  const components = alloyComponents(statements);
  return [...components.values()]
    .filter((component) => component.name === 'prometheus.scrape')
    .flatMap((scrape) => {
      const settings: ScrapeSettings = {
        jobName: (attributeOf(scrape, 'job_name') as string | undefined) ?? `prometheus.scrape.${scrape.label}`,
        metricsPath: (attributeOf(scrape, 'metrics_path') as string | undefined) ?? '/metrics',
        scheme: (attributeOf(scrape, 'scheme') as string | undefined) ?? 'http',
        params: (attributeOf(scrape, 'params') as Record<string, string[]> | undefined) ?? {},
      };
      return targetList(attributeOf(scrape, 'targets'), components).map((target) => scrapedTarget(target, settings));
    });
}
