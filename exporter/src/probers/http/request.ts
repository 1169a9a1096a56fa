/**
 * What an http module sends: method, headers (plain, from http_headers with their files, credentials)
 * and body. Files are read at every probe, so a rotated token or body is picked up without a reload.
 */
import type { HttpSection } from './definition';
import { readConfiguredFile } from '../shared/config-file';

/** Go's http.Header.Set canonical form: `content-type` becomes `Content-Type`. */
export function canonicalHeaderName(name: string): string {
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());
}

/** Headers as a list of name and values, so a header may repeat (http_headers with several values). */
export type HeaderList = Array<[name: string, values: string[]]>;

export interface RequestContent {
  readonly method: string;
  /** Host header to send, when the module or the `hostname` parameter sets one. */
  readonly host?: string;
  readonly headers: HeaderList;
  /** Sent on every hop, redirects to other hosts included, as upstream's client does. */
  readonly authorization?: string;
  readonly body?: Buffer;
}

async function readTrimmed(field: string, path: string): Promise<string> {
  return (await readConfiguredFile(field, path)).toString('utf8').trim();
}

async function authorizationHeader(http: HttpSection): Promise<string | undefined> {
  if (http.basic_auth) {
    const { username, username_file, password, password_file } = http.basic_auth;
    const user = username_file ? await readTrimmed('basic_auth.username_file', username_file) : (username ?? '');
    const secret = password_file ? await readTrimmed('basic_auth.password_file', password_file) : (password ?? '');
    return `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;
  }
  if (http.authorization) {
    const { type, credentials, credentials_file } = http.authorization;
    const value = credentials_file ? await readTrimmed('authorization.credentials_file', credentials_file) : credentials;
    return value === undefined ? undefined : `${type} ${value}`;
  }
  if (http.bearer_token_file) return `Bearer ${await readTrimmed('bearer_token_file', http.bearer_token_file)}`;
  if (http.bearer_token) return `Bearer ${http.bearer_token}`;
  return undefined;
}

/** The request an http module describes; `hostname` is the probe's `hostname` parameter. Rejects naming the field of a file it cannot read. */
export async function requestContent(http: HttpSection, userAgent: string, hostname: string | undefined): Promise<RequestContent> {
  const headers = new Map<string, string[]>();
  let host = hostname;
  for (const [name, value] of Object.entries(http.headers ?? {})) {
    const canonical = canonicalHeaderName(name);
    if (canonical === 'Host') host ??= value;
    else headers.set(canonical, [value]);
  }
  for (const [name, header] of Object.entries(http.http_headers ?? {})) {
    const canonical = canonicalHeaderName(name);
    const values = [...(header.values ?? []), ...(header.secrets ?? [])];
    for (const file of header.files ?? []) values.push(await readTrimmed(`http_headers.${name}.files`, file));
    headers.set(canonical, [...(headers.get(canonical) ?? []), ...values]);
  }
  if (!headers.has('User-Agent')) headers.set('User-Agent', [userAgent]);
  if (http.compression !== '' && !headers.has('Accept-Encoding')) headers.set('Accept-Encoding', [http.compression]);
  const body = http.body_file ? await readConfiguredFile('body_file', http.body_file) : http.body !== undefined && http.body !== '' ? Buffer.from(http.body) : undefined;
  return { method: http.method || 'GET', host, headers: [...headers], authorization: await authorizationHeader(http), body };
}
