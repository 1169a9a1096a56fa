/**
 * blackbox_exporter's regular expressions are Go's (RE2). JavaScript's differ in a few spellings; this
 * translates the ones that appear in real configs and refuses, with a message, what has no JS equivalent,
 * so that a pattern never silently means something else.
 */
import { z } from 'zod';

/** A regular expression as written in the file; the config loader compiles (and so checks) it. */
export const regexpSchema = z.string();

const POSIX_CLASSES: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

const GO_FLAGS: Record<string, string> = { i: 'i', m: 'm', s: 's' };

export class RegexpError extends Error {}

/** A compiled pattern, with the text it was written as: logs name a pattern by its text. */
export interface Pattern {
  readonly source: string;
  readonly regexp: RegExp;
}

/**
 * Compiles a Go regular expression into a JS RegExp with the same meaning, or throws RegexpError. This is
 * the one place a regular expression engine is called: the config loader calls it once per pattern, and
 * probes use what it returned. Without the g and y flags (never set here) a RegExp keeps no state between
 * calls, so one object serves every probe.
 */
export function compileGoRegexp(source: string): RegExp {
  let pattern = source;
  let flags = '';
  // Flags for the whole expression: `(?i)` or `(?is)` at the very start.
  const leading = /^\(\?([a-zA-Z]+)\)/.exec(pattern);
  if (leading) {
    for (const flag of leading[1]) {
      const js = GO_FLAGS[flag];
      if (js === undefined) throw new RegexpError(`flag (?${flag}) has no JavaScript equivalent`);
      if (!flags.includes(js)) flags += js;
    }
    pattern = pattern.slice(leading[0].length);
  }
  if (/\(\?[a-zA-Z-]+[):]/.test(pattern)) throw new RegexpError('inline flags are supported only at the start of the expression, as (?i)');
  pattern = pattern
    .replace(/\(\?P</g, '(?<')
    // RE2 lets an anchor take a quantifier (`^+OK`); JS wants the anchor grouped first.
    .replace(/(?<![\\[])\^(?=[*+?])/g, '(?:^)')
    .replace(/\\A/g, '^')
    .replace(/\\z/g, '$')
    .replace(/\[:(\^?)([a-z]+):\]/g, (_whole, negated: string, name: string) => {
      const range = POSIX_CLASSES[name];
      if (range === undefined) throw new RegexpError(`unknown character class [:${name}:]`);
      if (negated) throw new RegexpError(`negated class [:^${name}:] is not supported`);
      return range;
    });
  try {
    return new RegExp(pattern, flags);
  } catch (error) {
    throw new RegexpError((error as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /, ''));
  }
}

/**
 * Go's Regexp.Expand: `$1`, `${1}`, `$name`, `${name}` are replaced by the capture (empty when it did
 * not take part or does not exist), `$$` by `$`; a `$` not followed by a valid reference stays as is.
 * As in Go, `$1x` names the group "1x", so `${1}x` is how a digit is followed by text.
 */
export function expandGoTemplate(template: string, match: RegExpExecArray): string {
  return template.replace(/\$(\$|\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))/g, (whole, _reference: string, braced?: string, bare?: string) => {
    if (whole === '$$') return '$';
    const name = braced ?? bare ?? '';
    if (/^[0-9]+$/.test(name)) return match[Number(name)] ?? '';
    return match.groups?.[name] ?? '';
  });
}
