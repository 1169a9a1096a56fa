/**
 * What every `probekit` subcommand is: a name, a one-line summary, and a function from arguments to an exit code.
 * The edges (environment, files, output streams) come in through CliIo so that tests run commands in-process.
 */
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { SearchEngineTls } from '../search/connection';

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly readFile: (path: string) => string;
  /** Resolves when the command should stop serving (a signal, or the test's end); long-running commands await it. */
  readonly stopped?: Promise<void>;
}

export interface Command {
  readonly summary: string;
  readonly run: (args: readonly string[], io: CliIo) => Promise<number>;
}

/** A mistake in how the command was called: printed as one line, exit code 2. */
export class UsageError extends Error {}

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    readFile: (path) => readFileSync(path, 'utf8'),
  };
}

/**
 * A secret given by the name of an environment variable or by a file, never on the command line (where `ps` and
 * shell history would show it). A trailing newline of a file is not part of the secret.
 */
export function readSecret(io: CliIo, what: string, envFlag: string, envName: string | undefined, fileFlag: string, file: string | undefined): string {
  if ((envName === undefined) === (file === undefined)) {
    throw new UsageError(`${what}: give exactly one of --${envFlag} VAR or --${fileFlag} FILE`);
  }
  let value: string | undefined;
  if (envName !== undefined) {
    value = io.env[envName];
    if (value === undefined || value === '') throw new UsageError(`--${envFlag}: environment variable ${envName} is not set or empty; export it with the ${what}`);
  } else {
    try {
      value = io.readFile(file!).replace(/\r?\n$/, '');
    } catch (error) {
      throw new UsageError(`--${fileFlag}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'}); give a file holding the ${what}`);
    }
    if (value === '') throw new UsageError(`--${fileFlag}: ${file} is empty; write the ${what} into it`);
  }
  return value;
}

type OptionSpec = NonNullable<ParseArgsConfig['options']>;

/** Strict flag parsing: an unknown or malformed flag is a UsageError naming it and the usage line. */
export function parseFlags<T extends OptionSpec>(args: readonly string[], options: T, usage: string, allowPositionals = false): ReturnType<typeof parseArgs<{ args: string[]; options: T; strict: true; allowPositionals: boolean }>> {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals });
  } catch (error) {
    const message = (error as Error).message.split('. ')[0]!.replace(/'/g, '');
    throw new UsageError(`${message}; usage: ${usage}`);
  }
}

export function required(value: string | undefined, flag: string, hint: string): string {
  if (value === undefined || value === '') throw new UsageError(`--${flag} is required: ${hint}`);
  return value;
}

export const TLS_FLAGS = { insecure: { type: 'boolean' }, 'ca-file': { type: 'string' } } as const;

/** The TLS choice of --insecure / --ca-file; skipping verification is allowed, as the seed's example does, but said aloud. */
export function tlsFrom(values: { insecure?: boolean; 'ca-file'?: string }, io: CliIo): SearchEngineTls {
  if (values.insecure && values['ca-file'] !== undefined) throw new UsageError('--insecure and --ca-file exclude each other: verify with the CA, or skip verification');
  if (values.insecure) {
    io.stderr("warning: --insecure: the search engine's TLS certificate is not verified; whoever sits on the path can read what is sent\n");
  }
  return { insecure: values.insecure ?? false, ...(values['ca-file'] === undefined ? {} : { caFile: values['ca-file'] }) };
}
