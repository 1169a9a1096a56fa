/**
 * `/sd/<job>`: one job's target groups in Prometheus' HTTP SD format, from the target files of --sd.targets-dir
 * (./target-files.ts). The answer is made once per load, gzipped: a client that takes gzip (Prometheus does) gets
 * it as it is, any other gets it unzipped as it streams, so that no request holds a copy of a large answer. The
 * ETag lets a client that sends If-None-Match get 304 while the job's groups are unchanged.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { LoadedTargets } from './target-files';

/** Whether the client takes gzip: `Accept-Encoding` names gzip (or `*`) without `q=0`. */
export function acceptsGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((part) => {
    const [coding, ...parameters] = part.trim().split(';');
    const name = coding.trim().toLowerCase();
    if (name !== 'gzip' && name !== '*') return false;
    const q = parameters.map((parameter) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(parameter)?.[1]).find((value) => value !== undefined);
    return q === undefined || Number(q) > 0;
  });
}

/** Whether `If-None-Match` names `etag` (weakly compared, as RFC 9110 asks for this header) or is `*`. */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

/** Answers `/sd/<job>`; the status code it answered with, for the exporter's counter. */
export async function serveTargetGroups(encodedJob: string, request: IncomingMessage, response: ServerResponse, loaded: LoadedTargets | undefined): Promise<number> {
  const text = (status: number, body: string, headers: Record<string, string> = {}): number => {
    response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
    response.end(body);
    return status;
  };
  const method = request.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') return text(405, 'Use GET to read target groups\n', { Allow: 'GET, HEAD' });
  if (loaded === undefined) return text(404, 'No target files: start the exporter with --sd.targets-dir=FOLDER to serve target groups\n');
  let job: string;
  try {
    job = decodeURIComponent(encodedJob);
  } catch {
    return text(404, 'No such job: the path after /sd/ is not percent-encoded text\n');
  }
  const served = loaded.jobs.get(job);
  if (served === undefined) return text(404, `No job ${JSON.stringify(job)} in the target files; the jobs served are listed by probekit_exporter_sd_targets on /metrics\n`);
  const headers = { ETag: served.etag, 'Cache-Control': 'no-cache', Vary: 'Accept-Encoding' };
  if (matchesEtag(request.headers['if-none-match'], served.etag)) {
    response.writeHead(304, headers);
    response.end();
    return 304;
  }
  if (acceptsGzip(request.headers['accept-encoding'])) {
    response.writeHead(200, { ...headers, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': String(served.gzipped.length) });
    response.end(method === 'HEAD' ? undefined : served.gzipped);
    return 200;
  }
  response.writeHead(200, { ...headers, 'Content-Type': 'application/json' });
  if (method === 'HEAD') response.end();
  else await pipeline(Readable.from([served.gzipped]), createGunzip(), response);
  return 200;
}
