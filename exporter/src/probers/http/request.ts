/**
 * The request of one probe, from the module's request plan: files read now (one stat while a file is
 * unchanged), so a rotated token or body is picked up without a reload.
 */
import { readConfiguredFile } from '../shared/config-file';
import type { AuthorizationPlan, RequestPlan, Secret } from './request-plan';

/** Headers as a list of name and values, so a header may repeat (http_headers with several values). */
export type HeaderList = Array<[name: string, values: string[]]>;

export interface RequestContent {
  readonly method: string;
  /** Host header to send, when the module or the `hostname` parameter sets one. */
  readonly host?: string;
  readonly headers: HeaderList;
  /** Names (lower case) of the headers whose values are secrets or come from files. */
  readonly secretHeaders: ReadonlySet<string>;
  readonly authorization?: string;
  readonly body?: Buffer;
}

async function secretText(secret: Secret): Promise<string> {
  if ('text' in secret) return secret.text;
  return (await readConfiguredFile(secret.field, secret.file)).toString('utf8').trim();
}

async function authorizationHeader(plan: AuthorizationPlan | undefined): Promise<string | undefined> {
  if (plan === undefined) return undefined;
  if (plan.kind === 'scheme') return `${plan.type} ${await secretText(plan.credentials)}`;
  return `Basic ${Buffer.from(`${await secretText(plan.username)}:${await secretText(plan.password)}`).toString('base64')}`;
}

/**
 * The requests of plans that read no file, made once per plan: every probe of such a module sends the same one
 * (frozen, since probes share it), so a probe builds no header list of its own.
 */
const fixedRequests = new WeakMap<RequestPlan, RequestContent>();

function frozen(request: RequestContent): RequestContent {
  for (const [, values] of request.headers) Object.freeze(values);
  Object.freeze(request.headers);
  return Object.freeze(request);
}

/** The request `plan` describes; `hostname` is the probe's `hostname` parameter. Rejects naming the field of a file it cannot read. */
export async function requestContent(plan: RequestPlan, hostname: string | undefined): Promise<RequestContent> {
  let request = fixedRequests.get(plan);
  if (request === undefined) {
    request = await readRequest(plan);
    if (!plan.readsFiles) fixedRequests.set(plan, frozen(request));
  }
  return hostname === undefined ? request : { ...request, host: hostname };
}

async function readRequest(plan: RequestPlan): Promise<RequestContent> {
  const headers: HeaderList = [];
  for (const header of plan.headers) {
    const values: string[] = [];
    for (const value of header.values) values.push(await secretText(value));
    headers.push([header.name, values]);
  }
  const body = plan.body === undefined ? undefined : 'bytes' in plan.body ? plan.body.bytes : await readConfiguredFile('body_file', plan.body.file);
  const secretHeaders = new Set(plan.headers.filter((header) => header.secret).map((header) => header.name.toLowerCase()));
  return { method: plan.method, host: plan.hostHeader, headers, secretHeaders, authorization: await authorizationHeader(plan.authorization), body };
}
