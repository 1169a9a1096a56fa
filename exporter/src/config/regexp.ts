/**
 * blackbox_exporter's regular expressions are Go's (RE2 syntax and semantics). They run here on re2js, a
 * JavaScript port of RE2, so that a pattern means what it means upstream (`\Q...\E`, `\pL`, `[[:^alpha:]]`,
 * `(?U)`, flags anywhere) and what RE2 refuses is refused at load (lookaround, backreferences, `a{1001}`).
 * RE2 matches in time linear in the input, times the pattern's program size: a long pattern on a long text can
 * take seconds, which is why checks the cost of which is not small run on threads that can be stopped
 * (../probers/shared/checks.ts).
 */
import type { RE2JS } from 're2js';
import { z } from 'zod';

/** A regular expression as written in the file; the config loader compiles (and so checks) it. */
export const regexpSchema = z.string();

export class RegexpError extends Error {}

/** One match of a pattern: what Go's Regexp.Expand reads from it. */
export interface GoMatch {
  /** The text of group `index` (0: the whole match); undefined when it took no part or does not exist. */
  group(index: number): string | undefined;
  /** The text of the first group named `name` that took part; undefined otherwise. */
  named(name: string): string | undefined;
}

interface Compiled {
  readonly program: RE2JS;
  /** Group names by group number, in order: Go lets several groups share a name. */
  readonly names: ReadonlyArray<readonly [string, number]>;
}

/**
 * A Go regular expression, compiled (compileGoRegexp) or to be compiled at its first use (deferGoRegexp).
 * One object serves every probe: matching keeps no state between calls. Both methods search the whole text,
 * as Go's MatchString and FindStringSubmatch do: a pattern is anchored only where it says `^` or `\A`.
 */
export class GoRegexp {
  private compiled?: Compiled;

  constructor(private readonly source: string) {}

  /** Compiles it now, if not yet; throws RegexpError with RE2's reason. */
  compile(): Compiled {
    if (this.compiled) return this.compiled;
    try {
      const { pattern, renamed } = withUniqueGroupNames(this.source);
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- RE2 (3 MiB in memory) loads with the first pattern, not with the exporter
      const program = (require('re2js') as typeof import('re2js')).RE2JS.compile(pattern);
      const names = Object.entries(program.namedGroups())
        .map(([name, index]) => [renamed.get(name) ?? name, index] as const)
        .sort(([, a], [, b]) => a - b);
      return (this.compiled = { program, names });
    } catch (error) {
      // re2js's messages are RE2's and Go's: "error parsing regexp: invalid escape sequence: `\1`".
      throw new RegexpError((error as Error).message.replace(/^error parsing regexp: /, ''));
    }
  }

  /**
   * What compiling it cost, in a measure that does not depend on the machine or its load: the pattern's length
   * (parsing) and RE2's program size (the instructions built). re2js takes some 3 to 7 µs per unit here: a
   * 72 KB alternation of words is 44,000 units and 0.2 to 0.3 s, twenty `(\pL{10,1000})` groups 40,000 and 0.2 s.
   */
  compileCost(): number {
    return this.source.length + this.programSize();
  }

  /** Whether the pattern matches anywhere in `text`. */
  test(text: string): boolean {
    return this.compile().program.test(text);
  }

  /** Whether it was compiled in this thread already: until then, its cost is unknown here. */
  get compiledHere(): boolean {
    return this.compiled !== undefined;
  }

  /**
   * RE2's program size (compiles it, if not yet): matching costs at most some constant times this times the
   * text's length, as RE2 promises (../probers/shared/checks.ts measures the constant).
   */
  programSize(): number {
    return this.compile().program.programSize();
  }

  /** The leftmost match in `text` and its groups, or null. */
  exec(text: string): GoMatch | null {
    const data = this.match(text);
    return data && goMatch(data);
  }

  /** The leftmost match in `text` as plain data (what crosses between threads), or null. */
  match(text: string): MatchData | null {
    const { program, names } = this.compile();
    const matcher = program.matcher(text);
    if (!matcher.find()) return null;
    const groups: Array<string | undefined> = [];
    for (let index = 0; index <= matcher.groupCount(); index += 1) groups.push(matcher.group(index) ?? undefined);
    return { groups, names };
  }
}

/** A match as plain data: each group's text (undefined: it took no part), and the groups' names by number, in order. */
export interface MatchData {
  readonly groups: ReadonlyArray<string | undefined>;
  readonly names: ReadonlyArray<readonly [string, number]>;
}

/** What Go's Regexp.Expand reads from a match. */
export function goMatch({ groups, names }: MatchData): GoMatch {
  return {
    group: (index) => groups[index],
    named: (name) => names.map(([groupName, index]) => (groupName === name ? groups[index] : undefined)).find((text) => text !== undefined),
  };
}

/** `(?P<name>` or `(?<name>`, an escape (`\Q...\E` whole), or a character class: read in this order. */
const SYNTAX_PIECE = /\(\?P?<([A-Za-z0-9_]+)>|\\Q[\s\S]*?(?:\\E|$)|\\[\s\S]|\[\^?\]?(?:\[:\^?[a-z]+:\]|\\[\s\S]|[^\]])*\]/g;

/**
 * Go accepts several groups of one name (`(?P<x>a)|(?P<x>b)`), RE2 refuses them. The pattern with every
 * name after its first use made unique, and the original name of each renamed group.
 */
function withUniqueGroupNames(source: string): { pattern: string; renamed: Map<string, string> } {
  const seen = new Set<string>();
  const renamed = new Map<string, string>();
  const pattern = source.replace(SYNTAX_PIECE, (piece, name?: string) => {
    if (name === undefined) return piece;
    if (!seen.has(name)) {
      seen.add(name);
      return piece;
    }
    let unique = name;
    for (let suffix = 2; seen.has(unique) || source.includes(unique); suffix += 1) unique = `${name}_${suffix}`;
    seen.add(unique);
    renamed.set(unique, name);
    return `(?P<${unique}>`;
  });
  return { pattern, renamed };
}

/** A compiled pattern, with the text it was written as: logs name a pattern by its text. */
export interface Pattern {
  readonly source: string;
  readonly regexp: GoRegexp;
}

/**
 * Compiles a Go regular expression, or throws RegexpError with RE2's reason. GoRegexp.compile is the one place
 * a regular expression engine is called: the config loader compiles each pattern once, and probes use it.
 */
export function compileGoRegexp(source: string): GoRegexp {
  const regexp = new GoRegexp(source);
  regexp.compile();
  return regexp;
}

/**
 * A pattern another thread compiled already (so it compiles), compiled here only if it is ever used: the
 * serving thread keeps such modules when probe workers run the probes (../server/probe-pool.ts), and a
 * pattern's compile can take seconds, which that thread must never spend.
 */
export function deferGoRegexp(source: string): GoRegexp {
  return new GoRegexp(source);
}

/**
 * Go's Regexp.Expand: `$1`, `${1}`, `$name`, `${name}` are replaced by the capture (empty when it did not
 * take part or does not exist), `$$` by `$`; a `$` not followed by a valid reference stays as is. As in
 * Go, `$1x` names the group "1x", so `${1}x` is how a digit is followed by text, and a number with a
 * leading zero (`$01`) is a name, not a group number.
 */
export function expandGoTemplate(template: string, match: GoMatch): string {
  return template.replace(/\$(\$|\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))/g, (whole, _reference: string, braced?: string, bare?: string) => {
    if (whole === '$$') return '$';
    const name = braced ?? bare ?? '';
    if (/^(0|[1-9][0-9]{0,7})$/.test(name)) return match.group(Number(name)) ?? '';
    return match.named(name) ?? '';
  });
}
