/**
 * blackbox_exporter's config holds Go (RE2) regular expressions. The common subset is the same in
 * JavaScript; this turns the Go-only spellings users write (`(?P<name>...)`, leading `(?i)`-style flags,
 * `\A`, `\z`) into their JavaScript forms, and expands `${1}`/`$name` templates as Go's Regexp.Expand does.
 */

/** Leading `(?flags)` groups Go allows and JavaScript spells as RegExp flags. */
const LEADING_FLAGS = /^\(\?([imsU]+)\)/;

/** Compiles a Go regular expression; throws a SyntaxError naming the pattern when it is not valid. */
export function compileGoRegexp(pattern: string): RegExp {
  let source = pattern;
  let flags = '';
  const leading = LEADING_FLAGS.exec(source);
  if (leading) {
    if (leading[1].includes('U')) throw new SyntaxError(`regexp ${JSON.stringify(pattern)}: the U (ungreedy) flag is not supported`);
    flags = [...new Set(leading[1])].join('');
    source = source.slice(leading[0].length);
  }
  source = source.replace(/\(\?P</g, '(?<').replace(/\\A/g, '^').replace(/\\z/g, '$(?![\\s\\S])');
  try {
    return new RegExp(source, flags);
  } catch (error) {
    throw new SyntaxError(`regexp ${JSON.stringify(pattern)} does not compile: ${(error as Error).message}`);
  }
}

/** Whether `pattern` compiles; for schema refinements that report the field instead of throwing. */
export function isValidGoRegexp(pattern: string): boolean {
  try {
    compileGoRegexp(pattern);
    return true;
  } catch {
    return false;
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
