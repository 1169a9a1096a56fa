/**
 * A request's query string as upstream reads it (Go's url.ParseQuery, behind r.URL.Query()): pairs split
 * at `&`, `+` a space, `%XX` decoded. A pair holding `;`, or a `%` not followed by two hex digits in its key or
 * value, is an error there, and r.URL.Query() drops that pair: `/probe?target=http://host/%zz` has no target
 * upstream (400, "Target parameter is missing"). WHATWG's URLSearchParams keeps such pairs as written, so
 * this exporter probed them.
 */
export function requestQuery(search: string): URLSearchParams {
  const query = new URLSearchParams();
  for (const pair of search.replace(/^\?/, '').split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const equals = pair.indexOf('=');
    const key = unescapeQueryText(equals < 0 ? pair : pair.slice(0, equals));
    const value = unescapeQueryText(equals < 0 ? '' : pair.slice(equals + 1));
    if (key !== undefined && value !== undefined) query.append(key, value);
  }
  return query;
}

/** Go's QueryUnescape: `+` is a space, `%XX` a byte; undefined for a `%` without two hex digits after it. */
function unescapeQueryText(text: string): string | undefined {
  if (/%(?![0-9A-Fa-f]{2})/.test(text)) return undefined;
  const spaced = text.replace(/\+/g, ' ');
  return spaced.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'));
}
