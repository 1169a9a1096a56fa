/**
 * Rules across fields that the schema cannot say on its own, as upstream checks them at load time. Each
 * problem comes with the path of the field it concerns, so the loader can point at its line.
 */
import type { HttpProbe, Module } from './schema';
import { compileGoRegexp } from './regexp';
import { parseByteSize } from './size';
import { PROBER_NAMES } from '../contract/endpoints';
import type { FieldPath, Problem } from '../contract/problems';

/** Fields the schema knows (they are upstream's) that this exporter does not implement: refused by name. */
const UNSUPPORTED_HTTP_FIELDS = ['oauth2', 'no_proxy', 'proxy_from_environment', 'enable_http3'] as const;

/** Headers that http_headers may not set: each has its own field, or is the transport's business. */
const RESERVED_HEADERS = ['authorization', 'host', 'content-length', 'transfer-encoding', 'connection', 'upgrade'];

type Problems = Problem[];

function checkRegexp(problems: Problems, path: FieldPath, source: string): void {
  try {
    compileGoRegexp(source);
  } catch (error) {
    problems.push({ path, message: `could not compile regular expression ${JSON.stringify(source)}: ${(error as Error).message}` });
  }
}

function checkRegexps(problems: Problems, path: FieldPath, sources: readonly string[] | undefined): void {
  sources?.forEach((source, index) => checkRegexp(problems, [...path, index], source));
}

/**
 * Whether an Accept-Encoding header still admits `compression` with a non-zero quality (upstream refuses
 * a config whose header would make the server never send the compression it is told to expect).
 */
export function acceptEncodingAllows(compression: string, acceptEncoding: string): boolean {
  if (compression === '' || acceptEncoding === '') return true;
  return acceptEncoding.split(',').some((part) => {
    const [name, ...parameters] = part.split(';').map((piece) => piece.trim());
    const quality = parameters.find((parameter) => parameter.startsWith('q='));
    const q = quality === undefined ? 1 : Number(quality.slice(2));
    return (name.toLowerCase() === compression || name === '*') && q > 0;
  });
}

function checkHttp(problems: Problems, base: FieldPath, http: HttpProbe): void {
  const at = (...rest: Array<string | number>) => [...base, ...rest];
  for (const field of UNSUPPORTED_HTTP_FIELDS) {
    if (http[field] !== undefined && http[field] !== false) problems.push({ path: at(field), message: `${field} is not supported by probekit-exporter; remove it` });
  }
  checkRegexps(problems, at('fail_if_body_matches_regexp'), http.fail_if_body_matches_regexp);
  checkRegexps(problems, at('fail_if_body_not_matches_regexp'), http.fail_if_body_not_matches_regexp);
  for (const list of ['fail_if_header_matches', 'fail_if_header_not_matches'] as const) {
    http[list]?.forEach((matcher, index) => checkRegexp(problems, at(list, index, 'regexp'), matcher.regexp));
  }
  if (http.body !== undefined && http.body_file !== undefined) problems.push({ path: at('body_file'), message: 'set body or body_file, not both' });
  for (const [name, value] of Object.entries(http.headers ?? {})) {
    if (name.toLowerCase() === 'accept-encoding' && !acceptEncodingAllows(http.compression, value)) {
      problems.push({ path: at('headers', name), message: `"${name}: ${value}" refuses the configured compression "${http.compression}"; make them agree` });
    }
  }
  if (http.bearer_token !== undefined && http.bearer_token_file !== undefined) {
    problems.push({ path: at('bearer_token_file'), message: 'set bearer_token or bearer_token_file, not both' });
  }
  const schemes = [http.basic_auth && 'basic_auth', http.authorization && 'authorization', (http.bearer_token ?? http.bearer_token_file) !== undefined && 'bearer_token'].filter(Boolean);
  if (schemes.length > 1) problems.push({ path: at(String(schemes[1])), message: `set only one of ${schemes.join(', ')}` });
  if (http.basic_auth?.password !== undefined && http.basic_auth.password_file !== undefined) {
    problems.push({ path: at('basic_auth', 'password_file'), message: 'set basic_auth password or password_file, not both' });
  }
  if (http.basic_auth?.username !== undefined && http.basic_auth.username_file !== undefined) {
    problems.push({ path: at('basic_auth', 'username_file'), message: 'set basic_auth username or username_file, not both' });
  }
  if (http.authorization) {
    if (http.authorization.type.toLowerCase() === 'basic') problems.push({ path: at('authorization', 'type'), message: 'authorization type Basic: use basic_auth instead' });
    if (http.authorization.credentials !== undefined && http.authorization.credentials_file !== undefined) {
      problems.push({ path: at('authorization', 'credentials_file'), message: 'set authorization credentials or credentials_file, not both' });
    }
  }
  for (const name of Object.keys(http.http_headers ?? {})) {
    if (RESERVED_HEADERS.includes(name.toLowerCase())) problems.push({ path: at('http_headers', name), message: `header ${name} cannot be set through http_headers; use its own field` });
  }
  if (http.body_size_limit !== undefined && parseByteSize(http.body_size_limit) === undefined) {
    problems.push({ path: at('body_size_limit'), message: 'must be a size such as 1024, 512KB or 1MiB' });
  }
  if (http.proxy_url !== undefined && !/^https?:\/\/[^/]+/.test(http.proxy_url)) {
    problems.push({ path: at('proxy_url'), message: 'must be an http:// or https:// URL' });
  }
  if (http.proxy_connect_header !== undefined && http.proxy_url === undefined) {
    problems.push({ path: at('proxy_connect_header'), message: 'proxy_connect_header needs proxy_url' });
  }
}

/** Problems of one module that passed the schema. */
export function validateModule(name: string, module: Module): Problem[] {
  const problems: Problems = [];
  const base = ['modules', name];
  for (const section of PROBER_NAMES) {
    if (section !== module.prober && module[section] !== undefined) {
      problems.push({ path: [...base, section], message: `module has prober ${module.prober} but a ${section} section; rename the section or the prober` });
    }
  }
  if (module.http) checkHttp(problems, [...base, 'http'], module.http);
  module.tcp?.query_response?.forEach((step, index) => {
    if (step.expect !== undefined) checkRegexp(problems, [...base, 'tcp', 'query_response', index, 'expect'], step.expect);
  });
  if (module.prober === 'dns' && module.dns === undefined) problems.push({ path: [...base, 'prober'], message: 'a dns module needs dns.query_name' });
  if (module.dns) {
    for (const section of ['validate_answer_rrs', 'validate_authority_rrs', 'validate_additional_rrs'] as const) {
      const validator = module.dns[section];
      if (!validator) continue;
      for (const [rule, sources] of Object.entries(validator)) checkRegexps(problems, [...base, 'dns', section, rule], sources);
    }
  }
  return problems;
}
