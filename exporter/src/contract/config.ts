/**
 * The exporter's config file as a person writes it, in blackbox_exporter's format: hand-written types, so that an
 * editor shows each field with what it does and its default. The schemas that check a config at run time are the
 * probers' own (each prober's folder, ../config/schema.ts); a type test (test/contract/config-types.test.ts) holds
 * these types and the schemas' input types equal, field for field, so that neither gains a field alone.
 *
 * Durations are Go durations (`5s`, `1m30s`, `250ms`). Regular expressions are RE2's syntax, as upstream's.
 */
import { PROBER_NAMES as REGISTERED_PROBERS } from '../probers/registry';

/** The `prober` of a module: which kind of probe it runs, and the name of the section it reads. */
export type ProberName = 'http' | 'tcp' | 'icmp' | 'dns' | 'grpc' | 'unix';

/** Every prober, in the order error messages list them. */
export const PROBER_NAMES: readonly [ProberName, ...ProberName[]] = REGISTERED_PROBERS;

/** The whole config file (`--config.file`). */
export interface ConfigInput {
  /** Which hosts and addresses the probes of every module may reach; probekit's own setting, upstream has none. */
  readonly allowed_targets?: AllowedTargetsInput;
  /** The modules, by name: a probe asks for one with `?module=<name>`. */
  readonly modules: Readonly<Record<string, ModuleInput>>;
}

/** One module: a prober, its timeout and its settings. Only the section named by `prober` may be present. */
export interface ModuleInput {
  readonly prober: ProberName;
  /**
   * How long a probe may take, as a Go duration. The probe gets the shorter of this and the scrape's own timeout
   * (less `--timeout-offset`). @default - the scrape's timeout less the offset
   */
  readonly timeout?: string;
  readonly http?: HttpProbeInput;
  readonly tcp?: TcpProbeInput;
  readonly icmp?: IcmpProbeInput;
  readonly dns?: DnsProbeInput;
  readonly grpc?: GrpcProbeInput;
  readonly unix?: UnixProbeInput;
  /** Which hosts and addresses this module's probes may reach, on top of the config's own `allowed_targets`. */
  readonly allowed_targets?: AllowedTargetsInput;
}

/**
 * Limits on what probes may reach (probekit's extension). A target passes when it passes both the config's list
 * and its module's; every address a probe connects to is checked, redirects included.
 */
export interface AllowedTargetsInput {
  /** Host patterns the target's host must match: `example.org`, `*.example.org` (any name below it), an IP address, or `*`. */
  readonly hosts?: readonly string[];
  /** CIDR ranges (`10.0.0.0/8`, `2001:db8::/32`) or single addresses that every address a probe connects to must lie in. */
  readonly networks?: readonly string[];
  /** Refuse the exporter's own listening address and link-local and cloud metadata addresses, whatever the lists allow. @default false */
  readonly deny_self_and_metadata?: boolean;
}

/** Which IP version a prober resolves a host name to, shared by every prober that resolves names. */
export interface IpProtocolInput {
  /** The address family looked up first: `ip4` or `ip6`. @default "ip6" */
  readonly preferred_ip_protocol?: 'ip4' | 'ip6';
  /** Whether to use the other family when the preferred one has no address. @default true */
  readonly ip_protocol_fallback?: boolean;
}

/** TLS settings of a connection: what the probe trusts, what it presents, which versions it allows. */
export interface TlsConfigInput {
  /** The CA certificates, in PEM, that the server's certificate must chain to. @default - the system's trusted CAs */
  readonly ca?: string;
  /** A file holding the CA certificates in PEM, read at every probe. */
  readonly ca_file?: string;
  /** The client certificate, in PEM, presented to servers that ask for one. */
  readonly cert?: string;
  /** A file holding the client certificate in PEM, read at every probe. */
  readonly cert_file?: string;
  /** The client certificate's private key, in PEM. */
  readonly key?: string;
  /** A file holding the client certificate's private key in PEM, read at every probe. */
  readonly key_file?: string;
  /** The name the server's certificate is checked against, and sent as SNI. @default - the target's host */
  readonly server_name?: string;
  /** Accept any certificate, unchecked. The probe still reports the certificate's expiry. @default false */
  readonly insecure_skip_verify?: boolean;
  /** The lowest TLS version the probe offers. @default - TLS 1.2 */
  readonly min_version?: TlsVersion;
  /** The highest TLS version the probe offers. @default - the highest Node supports */
  readonly max_version?: TlsVersion;
}

export type TlsVersion = 'TLS10' | 'TLS11' | 'TLS12' | 'TLS13';

/** An `http` section: an HTTP request to the target URL, and what its answer must be to pass. */
export interface HttpProbeInput extends IpProtocolInput, ProxyInput {
  /** Status codes that pass. @default - any 2xx */
  readonly valid_status_codes?: readonly number[];
  /** HTTP versions that pass, as the response states them: `HTTP/1.0`, `HTTP/1.1`, `HTTP/2.0`. @default - any */
  readonly valid_http_versions?: readonly string[];
  /** The local address connections leave from (probekit's addition to this section). @default - the system's choice */
  readonly source_ip_address?: string;
  /** With a proxy, skip resolving the target's host: the proxy resolves it. @default false */
  readonly skip_resolve_phase_with_proxy?: boolean;
  /** The older way of saying `follow_redirects: false`; when set, it wins over `follow_redirects`. */
  readonly no_follow_redirects?: boolean;
  /** Fail when the final response came over TLS. @default false */
  readonly fail_if_ssl?: boolean;
  /** Fail when the final response did not come over TLS. @default false */
  readonly fail_if_not_ssl?: boolean;
  /** The request method. @default "GET" */
  readonly method?: string;
  /** Request headers, by name. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Fail when the body matches any of these regular expressions. */
  readonly fail_if_body_matches_regexp?: readonly string[];
  /** Fail unless the body matches every one of these regular expressions. */
  readonly fail_if_body_not_matches_regexp?: readonly string[];
  /** A CEL expression over the body read as JSON (the variable `body`); the probe fails when it is true. */
  readonly fail_if_body_json_matches_cel?: string;
  /** A CEL expression over the body read as JSON (the variable `body`); the probe fails unless it is true. */
  readonly fail_if_body_json_not_matches_cel?: string;
  /** Fail when a response header matches. */
  readonly fail_if_header_matches?: readonly HeaderMatchInput[];
  /** Fail when a response header does not match. */
  readonly fail_if_header_not_matches?: readonly HeaderMatchInput[];
  /** The request body. Set this or `body_file`. */
  readonly body?: string;
  /** A file whose content is the request body, read at every probe. */
  readonly body_file?: string;
  /** The encoding the body is expected in and decoded from before the body checks; also asked for with Accept-Encoding. @default "" (none) */
  readonly compression?: '' | 'gzip' | 'br' | 'deflate' | 'identity';
  /** The most body the probe reads, with a unit as upstream requires (`1024B`, `1MB`, `512KiB`); a longer body fails the probe. 0: no limit. @default - none: a body that regexps or CEL check is cut at 4 MiB, any other is read whole */
  readonly body_size_limit?: number | string;
  /** Basic authentication. Only one of `basic_auth`, `authorization`, `oauth2` and `bearer_token` may be set. */
  readonly basic_auth?: BasicAuthInput;
  /** An Authorization header with a type and credentials. */
  readonly authorization?: AuthorizationInput;
  /** A bearer token sent as `Authorization: Bearer <token>`. */
  readonly bearer_token?: string;
  /** A file holding the bearer token, read at every probe. */
  readonly bearer_token_file?: string;
  /** OAuth 2.0 client credentials: the probe fetches a token and sends it as a bearer token. */
  readonly oauth2?: OAuth2Input;
  /** TLS settings of the probe's connections. */
  readonly tls_config?: TlsConfigInput;
  /** Follow redirects. @default true */
  readonly follow_redirects?: boolean;
  /** Offer HTTP/2 to https:// targets. @default true */
  readonly enable_http2?: boolean;
  /** HTTP/3: upstream's field, refused by this exporter (Node has no QUIC client in its stable API). */
  readonly enable_http3?: boolean;
  /** Request headers from values, secrets or files, by name: for values that must stay out of the config and its logs. */
  readonly http_headers?: Readonly<Record<string, HttpHeaderInput>>;
}

/** A forward proxy for the requests of an `http` section or of its `oauth2` token requests. */
export interface ProxyInput {
  /** The proxy every request goes through, as a URL (`http://proxy.example.org:3128`). */
  readonly proxy_url?: string;
  /** Hosts, domains, IP addresses and CIDR ranges that do not go through `proxy_url`, comma-separated. */
  readonly no_proxy?: string;
  /** Take the proxy from the environment: HTTP_PROXY, HTTPS_PROXY and NO_PROXY. @default false */
  readonly proxy_from_environment?: boolean;
  /** Headers sent to the proxy with CONNECT, each with its values. */
  readonly proxy_connect_header?: Readonly<Record<string, readonly string[]>>;
}

/** A check of one response header. */
export interface HeaderMatchInput {
  /** The header's name. */
  readonly header: string;
  /** The regular expression its value is matched against. */
  readonly regexp: string;
  /** Whether a response without the header passes this check. @default false */
  readonly allow_missing?: boolean;
}

export interface BasicAuthInput {
  readonly username?: string;
  /** A file holding the user name, read at every probe. */
  readonly username_file?: string;
  readonly password?: string;
  /** A file holding the password, read at every probe. */
  readonly password_file?: string;
}

export interface AuthorizationInput {
  /** The scheme put before the credentials. @default "Bearer" */
  readonly type?: string;
  readonly credentials?: string;
  /** A file holding the credentials, read at every probe. */
  readonly credentials_file?: string;
}

/** OAuth 2.0 client credentials grant. */
export interface OAuth2Input extends ProxyInput {
  readonly client_id: string;
  readonly client_secret?: string;
  /** A file holding the client secret, read when a token is fetched. */
  readonly client_secret_file?: string;
  /** The scopes asked for. */
  readonly scopes?: readonly string[];
  /** Where tokens are fetched: an http:// or https:// URL. */
  readonly token_url: string;
  /** More form parameters sent with the token request. */
  readonly endpoint_params?: Readonly<Record<string, string>>;
  /** TLS settings of the token requests. */
  readonly tls_config?: TlsConfigInput;
}

/** One request header of `http_headers`: its values come from any of the three lists, in this order. */
export interface HttpHeaderInput {
  readonly values?: readonly string[];
  /** Values that are secrets: shown as `<secret>` by /config and debug output, and not sent on to another origin after a redirect. */
  readonly secrets?: readonly string[];
  /** Files whose content is a value, read at every probe. */
  readonly files?: readonly string[];
}

/** A `tcp` section: a connection to `host:port`, optionally TLS, and a dialogue of lines sent and expected. */
export interface TcpProbeInput extends IpProtocolInput {
  /** The local address the connection leaves from. @default - the system's choice */
  readonly source_ip_address?: string;
  /** The dialogue, step by step. */
  readonly query_response?: readonly QueryResponseInput[];
  /** TLS from the start of the connection. @default false */
  readonly tls?: boolean;
  /** TLS settings, for `tls` and for `starttls` steps. */
  readonly tls_config?: TlsConfigInput;
}

/** One step of a `query_response` dialogue: expect, then send, then optionally start TLS. */
export interface QueryResponseInput {
  /** A regular expression: lines are read until one matches. Its groups can be used in `send` and label values as `${1}` or `${name}`. */
  readonly expect?: string;
  /** Exactly these bytes must come next (text, or bytes written as `!!binary` in YAML). Not with `expect` in the same step. */
  readonly expect_bytes?: string | Uint8Array;
  /** Labels of the `probe_expect_info` metric, their values filled from `expect`'s groups. */
  readonly labels?: readonly QueryResponseLabelInput[];
  /** A line sent to the server (a newline is added): text, or bytes written as `!!binary` in YAML. */
  readonly send?: string | Uint8Array;
  /** Upgrade the connection to TLS after this step. @default false */
  readonly starttls?: boolean;
}

export interface QueryResponseLabelInput {
  /** A Prometheus label name. */
  readonly name: string;
  readonly value: string;
}

/** An `icmp` section: an echo request (ping) to a host, passing when a reply comes back. */
export interface IcmpProbeInput extends IpProtocolInput {
  /** The local address the request leaves from. @default - the system's choice */
  readonly source_ip_address?: string;
  /** Bytes of payload in the request, 0 to 65000. @default - a 28-byte text, as upstream's */
  readonly payload_size?: number;
  /** Set the IPv4 don't-fragment bit. @default false */
  readonly dont_fragment?: boolean;
  /** The request's time to live (IPv4) or hop limit (IPv6), 0 to 255. @default 64 */
  readonly ttl?: number;
}

/** A `dns` section: one query to the DNS server given as target, and what the answer must hold to pass. */
export interface DnsProbeInput extends IpProtocolInput {
  /** DNS over TLS; needs `transport_protocol: tcp`. @default false */
  readonly dns_over_tls?: boolean;
  /** TLS settings, for `dns_over_tls`. */
  readonly tls_config?: TlsConfigInput;
  /** The local address the query leaves from. @default - the system's choice */
  readonly source_ip_address?: string;
  /** @default "udp" */
  readonly transport_protocol?: 'udp' | 'tcp';
  /** @default "IN" */
  readonly query_class?: DnsQueryClass;
  /** The name asked about. Required. */
  readonly query_name: string;
  /** @default "ANY" */
  readonly query_type?: DnsQueryType;
  /** Set the RD bit: ask the server to resolve recursively. @default true */
  readonly recursion_desired?: boolean;
  /** Response codes that pass. @default ["NOERROR"] */
  readonly valid_rcodes?: readonly DnsRcode[];
  /** Checks of the answer section's records. */
  readonly validate_answer_rrs?: DnsRecordsCheckInput;
  /** Checks of the authority section's records. */
  readonly validate_authority_rrs?: DnsRecordsCheckInput;
  /** Checks of the additional section's records. */
  readonly validate_additional_rrs?: DnsRecordsCheckInput;
}

export type DnsQueryType = 'A' | 'AAAA' | 'MX' | 'TXT' | 'SOA' | 'NS' | 'CNAME' | 'SRV' | 'PTR' | 'ANY';
export type DnsQueryClass = 'IN' | 'CS' | 'CH' | 'HS' | 'ANY';
export type DnsRcode =
  | 'NOERROR'
  | 'FORMERR'
  | 'SERVFAIL'
  | 'NXDOMAIN'
  | 'NOTIMP'
  | 'REFUSED'
  | 'YXDOMAIN'
  | 'YXRRSET'
  | 'NXRRSET'
  | 'NOTAUTH'
  | 'NOTZONE'
  | 'BADSIG'
  | 'BADVERS'
  | 'BADKEY'
  | 'BADTIME'
  | 'BADMODE'
  | 'BADNAME'
  | 'BADALG'
  | 'BADTRUNC'
  | 'BADCOOKIE';

/** Regular expressions matched against the records of one section, each record written as one line of zone-file text. */
export interface DnsRecordsCheckInput {
  /** Fail when any record matches one of these. */
  readonly fail_if_matches_regexp?: readonly string[];
  /** Fail when every record matches one of these. */
  readonly fail_if_all_match_regexp?: readonly string[];
  /** Fail when some record does not match one of these. */
  readonly fail_if_not_matches_regexp?: readonly string[];
  /** Fail when no record matches one of these. */
  readonly fail_if_none_matches_regexp?: readonly string[];
}

/** A `grpc` section: a gRPC health check (grpc.health.v1) of the server at `host:port`. */
export interface GrpcProbeInput extends IpProtocolInput {
  /** The service asked about; empty asks about the server as a whole. @default "" */
  readonly service?: string;
  /** Connect with TLS. @default false */
  readonly tls?: boolean;
  /** TLS settings, for `tls`. */
  readonly tls_config?: TlsConfigInput;
  /** Metadata sent with the health check: each key with its values. */
  readonly metadata?: Readonly<Record<string, readonly string[]>>;
}

/** A `unix` section: a connection to a Unix stream socket (the target is its path), and the `tcp` section's dialogue. */
export interface UnixProbeInput {
  /** The dialogue, step by step. */
  readonly query_response?: readonly QueryResponseInput[];
  /** TLS from the start of the connection. @default false */
  readonly tls?: boolean;
  /** TLS settings, for `tls` and for `starttls` steps. */
  readonly tls_config?: TlsConfigInput;
}
