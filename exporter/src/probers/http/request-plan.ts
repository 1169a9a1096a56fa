/**
 * What an http module sends, settled at load: method, headers in the order they go out, credentials and
 * body. Values that come from files stay file paths, read at every probe (./request.ts), so a rotated
 * token or body is picked up without a reload.
 */
import { EXPORTER_USER_AGENT } from '../../version';
import type { HttpSection } from './definition';

/** Text written in the config, or the trimmed content of a file read when the request is made. */
export type Secret = { readonly text: string } | { readonly file: string; readonly field: string };

/** One header and its values, a header with several values going out once per value. */
export interface HeaderPlan {
  readonly name: string;
  readonly values: readonly Secret[];
  /** Whether a value comes from http_headers' secrets or files: a credential, not sent to another origin. */
  readonly secret: boolean;
}

export type AuthorizationPlan = { readonly kind: 'basic'; readonly username: Secret; readonly password: Secret } | { readonly kind: 'scheme'; readonly type: string; readonly credentials: Secret };

export interface RequestPlan {
  readonly method: string;
  /** Host header the module sets; the probe's `hostname` parameter comes first. */
  readonly hostHeader?: string;
  readonly headers: readonly HeaderPlan[];
  /** Sent on every hop to the target's origin; a redirect to another origin drops it (../http/probe.ts). */
  readonly authorization?: AuthorizationPlan;
  readonly body?: { readonly bytes: Buffer } | { readonly file: string };
  /** Whether a header value, a credential or the body is read from a file, as each probe must then do again. */
  readonly readsFiles: boolean;
}

/** Go's http.Header.Set canonical form: `content-type` becomes `Content-Type`. */
export function canonicalHeaderName(name: string): string {
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());
}

function text(value: string | undefined): Secret {
  return { text: value ?? '' };
}

function authorizationPlan(http: HttpSection): AuthorizationPlan | undefined {
  if (http.basic_auth) {
    const { username, username_file, password, password_file } = http.basic_auth;
    return {
      kind: 'basic',
      username: username_file ? { file: username_file, field: 'basic_auth.username_file' } : text(username),
      password: password_file ? { file: password_file, field: 'basic_auth.password_file' } : text(password),
    };
  }
  if (http.authorization) {
    const { type, credentials, credentials_file } = http.authorization;
    if (credentials_file) return { kind: 'scheme', type, credentials: { file: credentials_file, field: 'authorization.credentials_file' } };
    return credentials === undefined ? undefined : { kind: 'scheme', type, credentials: text(credentials) };
  }
  if (http.bearer_token_file) return { kind: 'scheme', type: 'Bearer', credentials: { file: http.bearer_token_file, field: 'bearer_token_file' } };
  if (http.bearer_token) return { kind: 'scheme', type: 'Bearer', credentials: text(http.bearer_token) };
  return undefined;
}

/**
 * The request an http module describes. Headers keep the order upstream's client sends them in: `headers`,
 * then `http_headers` (values, secrets, files; a name given twice gets both), then the defaults the module
 * did not set (User-Agent, and Accept-Encoding for the configured compression).
 */
export function compileRequestPlan(http: HttpSection): RequestPlan {
  const headers = new Map<string, Secret[]>();
  const secretHeaders = new Set<string>();
  let hostHeader: string | undefined;
  for (const [name, value] of Object.entries(http.headers ?? {})) {
    const canonical = canonicalHeaderName(name);
    if (canonical === 'Host') hostHeader ??= value;
    else headers.set(canonical, [text(value)]);
  }
  for (const [name, header] of Object.entries(http.http_headers ?? {})) {
    const canonical = canonicalHeaderName(name);
    const values: Secret[] = [...(header.values ?? []), ...(header.secrets ?? [])].map(text);
    for (const file of header.files ?? []) values.push({ file, field: `http_headers.${name}.files` });
    if ((header.secrets?.length ?? 0) + (header.files?.length ?? 0) > 0) secretHeaders.add(canonical);
    headers.set(canonical, [...(headers.get(canonical) ?? []), ...values]);
  }
  if (!headers.has('User-Agent')) headers.set('User-Agent', [text(EXPORTER_USER_AGENT)]);
  if (http.compression !== '' && !headers.has('Accept-Encoding')) headers.set('Accept-Encoding', [text(http.compression)]);
  const body = http.body_file ? { file: http.body_file } : http.body !== undefined && http.body !== '' ? { bytes: Buffer.from(http.body) } : undefined;
  const authorization = authorizationPlan(http);
  const credentials = authorization === undefined ? [] : authorization.kind === 'scheme' ? [authorization.credentials] : [authorization.username, authorization.password];
  const secrets = [...[...headers.values()].flat(), ...credentials];
  return {
    method: http.method || 'GET',
    hostHeader,
    headers: [...headers].map(([name, values]) => ({ name, values, secret: secretHeaders.has(name) })),
    authorization,
    body,
    readsFiles: (body !== undefined && 'file' in body) || secrets.some((secret) => 'file' in secret),
  };
}
