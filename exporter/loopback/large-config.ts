/**
 * A large valid config in blackbox_exporter's format, as generated configs of big installations look:
 * tens of thousands of small modules of every prober, written from a few templates, so most regular
 * expressions repeat and some are the module's own. The reload test and the benchmark load it.
 */
const TEMPLATES: ReadonlyArray<(name: string, index: number) => string> = [
  (name, index) => `  ${name}:\n    prober: http\n    timeout: 5s\n    http:\n      valid_status_codes: [200]\n      fail_if_body_not_matches_regexp: ["service-${index} (ok|up)"]\n`,
  (name) => `  ${name}:\n    prober: tcp\n    timeout: 5s\n    tcp:\n      query_response:\n        - expect: "^220 "\n        - send: QUIT\n`,
  (name, index) => `  ${name}:\n    prober: dns\n    dns:\n      query_name: host-${index}.example\n      validate_answer_rrs:\n        fail_if_not_matches_regexp: ["IN\\\\tA\\\\t127\\\\."]\n`,
  (name) => `  ${name}:\n    prober: icmp\n    timeout: 2s\n    icmp:\n      preferred_ip_protocol: ip4\n`,
];

/** The config text with `count` modules named module_00000, module_00001, ... */
export function largeConfigYaml(count: number): string {
  const parts = ['modules:\n'];
  for (let index = 0; index < count; index += 1) parts.push(TEMPLATES[index % TEMPLATES.length](`module_${String(index).padStart(5, '0')}`, index));
  return parts.join('');
}
