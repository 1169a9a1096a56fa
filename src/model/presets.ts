/**
 * The three documented modules (http_2xx, http_2xx_with_header, http_post_2xx), with exactly the documented
 * fields and values. They differ from the exporter's own defaults on purpose (ip4 without fallback, TLS
 * verification skipped): these are the documented modules, and users who want upstream's defaults write
 * their own module.
 */
import type { SecretRef } from './secret-ref';
import type { SpecModule } from './spec';

/** A fresh copy each time, so that one module's edits never reach another's. */
const documentedHttpBase = () => ({
  valid_http_versions: ['HTTP/1.1', 'HTTP/2.0'],
  method: 'GET',
  preferred_ip_protocol: 'ip4' as const,
  ip_protocol_fallback: false,
  no_follow_redirects: false,
  fail_if_ssl: false,
  fail_if_not_ssl: false,
  tls_config: { insecure_skip_verify: true },
});

const DOCUMENTED_TIMEOUT = '5s';

export const PRESET_NAMES = ['http_2xx', 'http_2xx_with_header', 'http_post_2xx'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

/** `http_2xx`: GET, no headers, no body. */
export function http2xx(): SpecModule {
  return { prober: 'http', timeout: DOCUMENTED_TIMEOUT, http: { ...documentedHttpBase() } };
}

export interface Http2xxWithHeaderOptions {
  /** The access token sent as `Authentication: Bearer <token>`; a reference, never the token itself. */
  readonly accessToken: SecretRef;
  /** Value of the Accept-Language header. @default en-US */
  readonly acceptLanguage?: string;
}

/** `http_2xx_with_header`: adds `Authentication: Bearer <ACCESS_TOKEN>` and `Accept-Language`. */
export function http2xxWithHeader(options: Http2xxWithHeaderOptions): SpecModule {
  const authentication: SecretRef = 'fromEnv' in options.accessToken ? { prefix: 'Bearer ', ...options.accessToken } : options.accessToken;
  return {
    prober: 'http',
    timeout: DOCUMENTED_TIMEOUT,
    http: {
      ...documentedHttpBase(),
      headers: { Authentication: authentication, 'Accept-Language': options.acceptLanguage ?? 'en-US' },
    },
  };
}

export interface HttpPost2xxOptions {
  /** The JSON document sent with every probe. */
  readonly body: string;
}

/** `http_post_2xx`: POST with `Content-Type: application/json` and a JSON body of the user's choice. */
export function httpPost2xx(options: HttpPost2xxOptions): SpecModule {
  return {
    prober: 'http',
    timeout: DOCUMENTED_TIMEOUT,
    http: {
      ...documentedHttpBase(),
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: options.body,
    },
  };
}

export const presets = { http2xx, http2xxWithHeader, httpPost2xx };

/** `preset: http_2xx` in the spec: GET, expecting a 2xx answer. */
export interface Http2xxPreset {
  readonly preset: 'http_2xx';
}

/** `preset: http_2xx_with_header` in the spec, with its parameters. */
export interface Http2xxWithHeaderPreset extends Http2xxWithHeaderOptions {
  readonly preset: 'http_2xx_with_header';
}

/** `preset: http_post_2xx` in the spec, with its parameters. */
export interface HttpPost2xxPreset extends HttpPost2xxOptions {
  readonly preset: 'http_post_2xx';
}

/** A module of the spec written as a preset and its parameters; the preset fixes every other field. */
export type PresetModule = Http2xxPreset | Http2xxWithHeaderPreset | HttpPost2xxPreset;
