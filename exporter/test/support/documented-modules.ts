/**
 * The three documented modules (http_2xx, http_2xx_with_header, http_post_2xx: the presets of the spec, as
 * probekit renders them) as exporter config YAML, written once for every exporter test that needs them.
 */
export interface DocumentedModuleValues {
  /** Value of the Authentication header of http_2xx_with_header (documented as `Bearer <ACCESS_TOKEN>`). */
  readonly authentication: string;
  readonly acceptLanguage: string;
  /** The JSON body of http_post_2xx, chosen by the user. */
  readonly postBody: string;
}

function documentedModule(name: string, method: string, extra: string): string {
  return `  ${name}:
    prober: http
    timeout: 5s
    http:
      valid_http_versions: ["HTTP/1.1", "HTTP/2.0"]
      method: ${method}
${extra}      preferred_ip_protocol: ip4
      ip_protocol_fallback: false
      no_follow_redirects: false
      fail_if_ssl: false
      fail_if_not_ssl: false
      tls_config:
        insecure_skip_verify: true
`;
}

/** The `modules:` entries (without the `modules:` line) of the three documented modules. */
export function documentedModulesYaml(values: DocumentedModuleValues): string {
  return (
    documentedModule('http_2xx', 'GET', '') +
    documentedModule('http_2xx_with_header', 'GET', `      headers:\n        Authentication: ${values.authentication}\n        Accept-Language: ${values.acceptLanguage}\n`) +
    documentedModule('http_post_2xx', 'POST', `      headers:\n        Content-Type: application/json\n      body: '${values.postBody}'\n`)
  );
}
