/**
 * Config files as people write them for blackbox_exporter, with what upstream's loader does with each:
 * the loader tests check ours reads them so, and the reference test checks upstream does.
 */

export interface UpstreamConfig {
  readonly name: string;
  readonly text: string | Buffer;
  /** What upstream (0.23 and 0.28 alike) does with the file. */
  readonly upstream: 'loads' | 'refuses';
  /** Where ours differs on purpose: what it does, and why (docs/differences.md lists these). */
  readonly ours?: { readonly does: 'loads' | 'refuses'; readonly why: string };
}

const http = (section: string): string => `modules:\n  m:\n    prober: http\n    http:\n${section}`;

export const UPSTREAM_CONFIGS: readonly UpstreamConfig[] = [
  {
    name: 'merge keys from an anchored module',
    text: 'modules:\n  base: &base\n    prober: http\n    timeout: 5s\n    http: { method: HEAD }\n  m:\n    <<: *base\n    timeout: 3s\n',
    upstream: 'loads',
  },
  { name: 'YAML 1.1 booleans', text: http('      fail_if_ssl: yes\n      fail_if_not_ssl: off\n      follow_redirects: On\n      enable_http2: "no"\n'), upstream: 'loads' },
  { name: 'a quoted "true" for a boolean', text: http('      fail_if_ssl: "true"\n'), upstream: 'refuses' },
  { name: 'a timeout with a fraction', text: 'modules:\n  m:\n    prober: http\n    timeout: 1.5s\n', upstream: 'loads' },
  {
    name: 'a timeout in microseconds, and minutes with a fraction of a second',
    text: 'modules:\n  a:\n    prober: http\n    timeout: 500us\n  b:\n    prober: tcp\n    timeout: 1m0.5s\n',
    upstream: 'loads',
  },
  { name: 'a timeout in days', text: 'modules:\n  m:\n    prober: http\n    timeout: 1d\n', upstream: 'refuses' },
  { name: 'a size with a fraction', text: http('      body_size_limit: 1.5MB\n'), upstream: 'loads' },
  { name: 'a size in SI kilobytes', text: http('      body_size_limit: 1kB\n'), upstream: 'refuses' },
  { name: 'a size without a unit', text: http('      body_size_limit: 1024\n'), upstream: 'refuses' },
  { name: 'a size of -1', text: http('      body_size_limit: -1\n'), upstream: 'refuses' },
  { name: 'a size of -1 quoted', text: http('      body_size_limit: "-1"\n'), upstream: 'refuses' },
  { name: 'a negative size with a unit', text: http('      body_size_limit: -1B\n'), upstream: 'loads' },
  { name: 'a size of 0 without a unit', text: http('      body_size_limit: 0\n'), upstream: 'loads' },
  { name: 'a size of 0.0', text: http('      body_size_limit: 0.0\n'), upstream: 'refuses' },
  { name: 'a size with a fraction and no unit', text: http('      body_size_limit: 1.5\n'), upstream: 'refuses' },
  { name: 'a size with a bare K', text: http('      body_size_limit: 1K\n'), upstream: 'refuses' },
  { name: 'a size with a space before its unit', text: http('      body_size_limit: 1 KB\n'), upstream: 'refuses' },
  { name: 'a size with a space after its unit', text: http('      body_size_limit: "1KB "\n'), upstream: 'refuses' },
  { name: 'a size in lower case', text: http('      body_size_limit: 1kib\n'), upstream: 'refuses' },
  { name: 'a size in KiB and MiB summed', text: http('      body_size_limit: 1MiB512KiB\n'), upstream: 'loads' },
  { name: 'a size mixing MiB and KB', text: http('      body_size_limit: 1MiB512KB\n'), upstream: 'refuses' },
  { name: 'a size of a bytes count followed by digits', text: http('      body_size_limit: 1B2\n'), upstream: 'refuses' },
  { name: 'a size in exbibytes', text: http('      body_size_limit: 7EiB\n'), upstream: 'loads' },
  { name: 'a size in scientific notation', text: http('      body_size_limit: 1e3\n'), upstream: 'refuses' },
  { name: 'header values that YAML reads as a number and a boolean', text: http('      headers:\n        X-Count: 5\n        X-Debug: true\n'), upstream: 'loads' },
  { name: 'a query name that YAML reads as a number', text: 'modules:\n  m:\n    prober: dns\n    dns:\n      query_name: 123\n', upstream: 'loads' },
  { name: 'a TTL written as a float', text: 'modules:\n  m:\n    prober: icmp\n    icmp:\n      ttl: 64.0\n', upstream: 'loads' },
  { name: 'a TTL written as text', text: 'modules:\n  m:\n    prober: icmp\n    icmp:\n      ttl: "64"\n', upstream: 'refuses' },
  { name: 'status codes in hexadecimal', text: http('      valid_status_codes: [0xC8, 204]\n'), upstream: 'loads' },
  { name: 'modules: left empty', text: 'modules:\n', upstream: 'loads' },
  { name: 'an empty file', text: '', upstream: 'refuses' },
  { name: 'two documents', text: 'modules:\n  a:\n    prober: http\n---\nmodules:\n  b:\n    prober: tcp\n', upstream: 'loads' },
  { name: 'a broken second document', text: 'modules:\n  a:\n    prober: http\n---\nmodules: [\n', upstream: 'loads' },
  { name: 'a key given twice', text: 'modules:\n  a:\n    prober: http\n  a:\n    prober: tcp\n', upstream: 'refuses' },
  {
    name: 'invalid UTF-8',
    text: Buffer.concat([Buffer.from(http('      headers: { X-Name: "')), Buffer.from([0xff, 0xfe]), Buffer.from('" }\n')]),
    upstream: 'refuses',
  },
  { name: 'a NUL byte', text: http('      headers: { X-Name: "a\0b" }\n'), upstream: 'refuses' },
  { name: 'another control character', text: http('      headers: { X-Name: "a\u0001b" }\n'), upstream: 'refuses' },
  { name: 'a NUL written as an escape', text: http('      headers: { X-Name: "a\\0b" }\n'), upstream: 'loads' },
  { name: 'a byte order mark', text: '\ufeffmodules:\n  m:\n    prober: http\n', upstream: 'loads' },
  { name: 'tabs as indentation', text: 'modules:\n\tm:\n    prober: http\n', upstream: 'refuses' },
  { name: 'bytes to send in !!binary', text: 'modules:\n  m:\n    prober: tcp\n    tcp:\n      query_response:\n        - send: !!binary AAAACATSFi8=\n', upstream: 'loads' },
  { name: 'a module name YAML reads as a number', text: 'modules:\n  5:\n    prober: http\n', upstream: 'loads' },
  { name: 'an unknown field', text: http('      methd: GET\n'), upstream: 'refuses' },
  {
    name: 'a module without its prober',
    text: 'modules:\n  m:\n    timeout: 5s\n',
    upstream: 'loads',
    ours: { does: 'refuses', why: 'upstream accepts it and fails every probe of it; probekit says so at load' },
  },
];
