/**
 * OAuth2 client credentials for http probes, as prometheus/common's client gets them (golang.org/x/oauth2's
 * clientcredentials): a form POST to token_url with grant_type=client_credentials, the scopes and
 * endpoint_params, the client's id and secret in a Basic Authorization header (in the form instead when
 * that fails, as Go's auto-detection does), over the section's tls_config and proxy. The
 * token is cached per module and reused until 10 seconds before it expires; a client secret changed in its
 * file starts over with a new token.
 */
import type { ConnectionOptions } from 'node:tls';
import { EXPORTER_USER_AGENT } from '../../version';
import { beforeDeadline } from '../shared/deadline';
import { readConfiguredFile } from '../shared/config-file';
import type { Resources } from '../shared/resources';
import { tlsConnectionOptions } from '../shared/tls';
import type { ProbeDeadline } from '../types';
import { exchange, type Hop } from './exchange';
import type { OAuth2Settings } from './definition';

/** golang.org/x/oauth2 treats a token as expired this long before it says it expires. */
const EXPIRY_MARGIN_MS = 10_000;

/** golang.org/x/oauth2 reads at most 1 MiB of a token response. */
const MAX_TOKEN_RESPONSE_BYTES = 1 << 20;

interface CachedToken {
  /** The client secret the token was obtained with. */
  readonly secret: string;
  readonly authorization: string;
  /** Epoch milliseconds after which a new token is fetched; Infinity when the endpoint gave no expiry. */
  readonly renewAt: number;
}

/** The Authorization scheme for a token_type, as golang.org/x/oauth2's Token.Type() writes it. */
function scheme(tokenType: unknown): string {
  const type = typeof tokenType === 'string' ? tokenType : '';
  switch (type.toLowerCase()) {
    case '':
    case 'bearer':
      return 'Bearer';
    case 'mac':
      return 'MAC';
    case 'basic':
      return 'Basic';
    default:
      return type;
  }
}

/** One module's token source: fetches client-credentials tokens and keeps the current one. */
class OAuth2TokenSource {
  private cached?: CachedToken;
  /** Whether the endpoint wants the credentials in the form rather than a header (found out once, as Go does). */
  private credentialsInForm = false;

  constructor(readonly settings: OAuth2Settings) {}

  /** The Authorization header value for a probe starting now; fetches a token when the cached one will not do. */
  async authorization(deadline: ProbeDeadline, resources: Resources): Promise<string> {
    const secret = await this.secret();
    const cached = this.cached;
    if (cached && cached.secret === secret && Date.now() < cached.renewAt) return cached.authorization;
    const token = await beforeDeadline(deadline, 'oauth2 token', this.fetchToken(secret, deadline, resources));
    this.cached = token;
    return token.authorization;
  }

  private async secret(): Promise<string> {
    const configured = this.settings.clientSecret;
    if ('text' in configured) return configured.text;
    return (await readConfiguredFile('oauth2.client_secret_file', configured.file)).toString('utf8').trim();
  }

  /** Go's auto-detection: the header first; after any failure, the form, which is remembered once it works. */
  private async fetchToken(secret: string, deadline: ProbeDeadline, resources: Resources): Promise<CachedToken> {
    if (this.credentialsInForm) return this.request(secret, true, deadline, resources);
    try {
      return await this.request(secret, false, deadline, resources);
    } catch {
      const token = await this.request(secret, true, deadline, resources);
      this.credentialsInForm = true;
      return token;
    }
  }

  private async request(secret: string, inForm: boolean, deadline: ProbeDeadline, resources: Resources): Promise<CachedToken> {
    const { tokenUrl, clientId, scopes, endpointParams } = this.settings;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scopes.length > 0) form.set('scope', scopes.join(' '));
    for (const [name, value] of Object.entries(endpointParams)) form.set(name, value);
    const headers: Array<[string, string[]]> = [
      ['Content-Type', ['application/x-www-form-urlencoded']],
      ['User-Agent', [EXPORTER_USER_AGENT]],
    ];
    if (inForm) {
      form.set('client_id', clientId);
      if (secret !== '') form.set('client_secret', secret);
    } else {
      // RFC 6749 2.3.1: both parts form-encoded before they are joined.
      const encode = (text: string): string => new URLSearchParams({ x: text }).toString().slice(2);
      headers.push(['Authorization', [`Basic ${Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString('base64')}`]]);
    }
    const tls = tokenUrl.protocol === 'https:';
    const hostName = tokenUrl.hostname.replace(/^\[|\]$/g, '');
    const hop: Hop = { url: tokenUrl, address: hostName, port: Number(tokenUrl.port || (tls ? 443 : 80)), tls, host: tokenUrl.host, serverName: this.settings.tls.serverName || hostName };
    const tlsOptions: ConnectionOptions | undefined = tls ? await tlsConnectionOptions(this.settings.tls, hop.serverName) : undefined;
    const started = Date.now();
    const response = await exchange(
      hop,
      { method: 'POST', headers, body: Buffer.from(form.toString()) },
      { tlsOptions, enableHttp2: true, proxy: this.settings.proxy?.forUrl(tokenUrl) },
      deadline,
      { start: performance.now(), dnsDone: performance.now() },
      resources,
    );
    const chunks: Buffer[] = [];
    let length = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      length += chunk.length;
      if (length > MAX_TOKEN_RESPONSE_BYTES) throw new Error('oauth2: token response larger than 1 MiB');
      chunks.push(chunk);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    if (response.status < 200 || response.status > 299) {
      throw new Error(`oauth2: cannot fetch token: ${response.status} from ${tokenUrl.origin}${tokenUrl.pathname}`);
    }
    let body: Record<string, unknown>;
    try {
      const contentType = response.headers.find(([name]) => name === 'content-type')?.[1] ?? '';
      body = /application\/x-www-form-urlencoded|text\/plain/.test(contentType) ? Object.fromEntries(new URLSearchParams(text)) : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      throw new Error('oauth2: cannot parse the token response');
    }
    const accessToken = body.access_token;
    if (typeof accessToken !== 'string' || accessToken === '') throw new Error('oauth2: server response missing access_token');
    const expiresIn = Number(body.expires_in ?? 0);
    const renewAt = Number.isFinite(expiresIn) && expiresIn > 0 ? started + expiresIn * 1000 - EXPIRY_MARGIN_MS : Infinity;
    return { secret, authorization: `${scheme(body.token_type)} ${accessToken}`, renewAt };
  }
}

/** Token sources by the compiled settings of their module: a reload starts afresh, as upstream's new client does. */
const SOURCES = new WeakMap<OAuth2Settings, OAuth2TokenSource>();

/** The Authorization header value for a probe of the module whose oauth2 settings these are. */
export function oauth2Authorization(settings: OAuth2Settings, deadline: ProbeDeadline, resources: Resources): Promise<string> {
  let source = SOURCES.get(settings);
  if (source === undefined) {
    source = new OAuth2TokenSource(settings);
    SOURCES.set(settings, source);
  }
  return source.authorization(deadline, resources);
}
