/**
 * Flags that every command reaching a search engine shares: its URL as the user gave it, and the TLS choice.
 */
import { resolve } from 'node:path';
import { UsageError, type CliIo, type Flags } from 'probekit/cli';
import { urlProblem, type SearchEngineTls } from '../connection';

/**
 * A search engine's URL as the user gave it, with `named` the flag or variable that gave it (`--url`,
 * `PROBEKIT_SEARCH_ENGINE_URL`). A wrong one is a UsageError that echoes it, unless it holds credentials.
 */
export function checkedUrlArgument(url: string, named: string): string {
  const problem = urlProblem(url);
  if (problem === undefined) return url;
  const given = url.includes('@') ? named : named.startsWith('-') ? `${named} ${url}` : `${named}=${url}`;
  throw new UsageError(`${given}: ${problem}`);
}

/** The search engine's URL, as every command reaching it asks for it. */
export const URL_HELP = "the search engine's URL, e.g. https://elasticsearch.example:9200";

/** How the engine's TLS certificate is checked. */
export const TLS_FLAGS = {
  insecure: { type: 'boolean', or: 'ca-file', help: "skip verifying the engine's TLS certificate, so whoever sits on the path can read what is sent" },
  'ca-file': { type: 'string', value: 'FILE', defaultText: 'the CAs Node trusts, with NODE_EXTRA_CA_CERTS', help: "a PEM file of the CA that signed the engine's certificate" },
} as const satisfies Flags;

/**
 * The TLS choice of --insecure / --ca-file (parseFlags refuses both, a pair of TLS_FLAGS); skipping verification is
 * allowed, as the documented example does, but said aloud.
 */
export function tlsFrom(values: { insecure?: boolean; 'ca-file'?: string }, io: CliIo): SearchEngineTls {
  if (values.insecure) {
    io.stderr("warning: --insecure: the search engine's TLS certificate is not verified; whoever sits on the path can read what is sent\n");
  }
  return { insecure: values.insecure ?? false, ...(values['ca-file'] === undefined ? {} : { caFile: resolve(io.cwd, values['ca-file']) }) };
}
