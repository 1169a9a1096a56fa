/**
 * What every `probekit` command is: a name, a one-line summary, usage text, and a function from arguments to an
 * exit code (0 ok, 1 failure, 2 a mistake in the command line). The edges (environment, files, the caller's
 * directory, output streams) come in through CliIo so that tests run commands in-process.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { closestName } from '@probekit/exporter';

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Whether stderr is a terminal, where progress may redraw a line rather than add one. @default false */
  readonly stderrIsTerminal?: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly readFile: (path: string) => string;
  /** The caller's directory: relative paths given on the command line are read from here. */
  readonly cwd: string;
  /** Resolves when the command should stop serving (a signal, or the test's end); long-running commands await it. */
  readonly stopped?: Promise<void>;
}

export interface Command {
  readonly summary: string;
  /** Help text: usage lines, printed for --help and -h. */
  readonly usage: string;
  readonly run: (args: readonly string[], io: CliIo) => Promise<number>;
}

/** A mistake in how the command was called: printed as one line, exit code 2. */
export class UsageError extends Error {}

/** A failure the command met with a right command line (a search engine refused, a package is missing): printed line by line, exit code 1. */
export class CommandFailure extends Error {}

/** `--help` or `-h` among a command's flags: the dispatcher prints `usage` on stdout and exits 0. */
export class HelpRequest extends Error {
  constructor(readonly usage: string) {
    super('help requested');
  }
}

const HELP = ['--help', '-h'];

export interface Subcommand {
  /** One usage line, starting with the whole command (`probekit host render`). */
  readonly usage: string;
  readonly run: (args: readonly string[], io: CliIo) => Promise<number>;
}

/**
 * A command made of subcommands (`probekit search-engine create-key ...`): without a subcommand it prints its
 * usage (each subcommand's line, and where its flags are told) and exits 2; `--help` and `-h` print it on stdout;
 * an unknown one names the likely one.
 */
export function commandGroup(name: string, summary: string, subcommands: Readonly<Record<string, Subcommand>>): Command {
  const usage = `usage:\n${Object.values(subcommands)
    .map((subcommand) => `  ${subcommand.usage}`)
    .join('\n')}\n\nprobekit ${name} <command> --help lists a command's flags, their defaults and its exit codes\n`;
  return {
    summary,
    usage,
    async run(args, io) {
      const [sub, ...rest] = args;
      if (sub === undefined) {
        io.stderr(usage);
        return 2;
      }
      if (HELP.includes(sub)) throw new HelpRequest(usage);
      const subcommand = subcommands[sub];
      if (subcommand === undefined) {
        const names = Object.keys(subcommands);
        const suggestion = closestName(sub, names);
        throw new UsageError(`unknown ${name} command "${sub}"; ${suggestion ? `did you mean "${suggestion}"? ` : ''}the commands are ${names.join(', ')} (probekit ${name} --help)`);
      }
      return subcommand.run(rest, io);
    },
  };
}

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stderrIsTerminal: process.stderr.isTTY === true,
    env: process.env,
    readFile: (path) => readFileSync(path, 'utf8'),
    cwd: process.cwd(),
  };
}

/** The value of the environment variable a flag names; a UsageError when it is not set or empty. */
export function fromEnvironment(io: CliIo, flag: string, name: string, what: string): string {
  const value = io.env[name];
  if (value === undefined || value === '') throw new UsageError(`--${flag}: environment variable ${name} is not set or empty; export it with the ${what}`);
  return value;
}

/**
 * A secret given by the name of an environment variable or by a file, never on the command line (where `ps` and
 * shell history would show it). A trailing newline of a file is not part of the secret.
 */
export function readSecret(io: CliIo, what: string, envFlag: string, envName: string | undefined, fileFlag: string, file: string | undefined): string {
  checkPair(envFlag, envName, fileFlag, file, true, `the ${what}`);
  if (envName !== undefined) return fromEnvironment(io, envFlag, envName, what);
  let value: string;
  try {
    value = io.readFile(resolve(io.cwd, file!)).replace(/\r?\n$/, '');
  } catch (error) {
    throw new UsageError(`--${fileFlag}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'}); give a file holding the ${what}`);
  }
  if (value === '') throw new UsageError(`--${fileFlag}: ${file} is empty; write the ${what} into it`);
  return value;
}

type OptionSpec = NonNullable<ParseArgsConfig['options']>;

/**
 * A flag as a command declares it, once: node's parsing fields (`type`, `short`, `multiple`, and a `default` the
 * parser fills in) and what `--help` says of it, so that the help, the defaults and the parsing cannot disagree.
 */
export interface Flag {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly multiple?: boolean;
  /** The value given when the flag is not: the parser fills it in and the help shows it. */
  readonly default?: string;
  /** The default in words, when no value stands for it: `the PROBEKIT_SPEC environment variable`. */
  readonly defaultText?: string;
  /** The value's name in the usage and the help: FILE, DIR, NAME. @default VALUE */
  readonly value?: string;
  /** What the flag gives, for `--help`; a missing required flag says it too. */
  readonly help: string;
  /** The command cannot run without it: the usage shows it without brackets, and parseFlags refuses a line without it. */
  readonly required?: boolean;
  /**
   * The other flag of a pair that give one value two ways (a secret from a variable or from a file), declared on the
   * first of the two: parseFlags refuses both at once; the usage shows them as one choice, `(--a VAR | --b FILE)`,
   * and `required` on the first makes one of the two required.
   */
  readonly or?: string;
}

export type Flags = Readonly<Record<string, Flag>>;

/** `--out DIR`, `--insecure`: a flag as the usage writes it. */
function flagWord(name: string, flag: Flag): string {
  return `--${name}${flag.type === 'string' ? ` ${flag.value ?? 'VALUE'}` : ''}`;
}

function flagName(name: string, flag: Flag): string {
  return `${flag.short === undefined ? '' : `-${flag.short}, `}${flagWord(name, flag)}`;
}

/** The flag `name` makes a pair with (see Flag.or), whichever of the two declares it; undefined for a flag alone. */
function partnerOf(name: string, flags: Flags): string | undefined {
  return flags[name]?.or ?? Object.keys(flags).find((other) => flags[other]!.or === name);
}

/**
 * The usage line of a command from its flags: `probekit synth [--spec FILE] [--out DIR]`, a required one bare, a
 * pair as one choice: `(--password-env VAR | --password-file FILE)`, `[--api-token-env VAR | --api-token-file FILE]`.
 */
export function usageLine(command: string, flags: Flags): string {
  const words = Object.entries(flags).flatMap(([name, flag]) => {
    if (flag.or === undefined && partnerOf(name, flags) !== undefined) return []; // written with the flag that declares the pair
    const word = flag.or === undefined ? flagWord(name, flag) : `${flagWord(name, flag)} | ${flagWord(flag.or, flags[flag.or]!)}`;
    if (flag.required) return [flag.or === undefined ? word : `(${word})`];
    return [`[${word}]${flag.multiple ? '...' : ''}`];
  });
  return [command, ...words].join(' ');
}

/**
 * A command's `--help`, to pass to parseFlags: the usage line, what it does (`about`, a paragraph or more), each
 * flag with what it gives and its default (read from the flags), and the exit codes.
 */
export function helpText(usage: string, flags: Flags, about: string, exitCodes?: string): string {
  const rows = [...Object.entries(flags).map(([name, flag]) => [flagName(name, flag), flagDescription(name, flags)] as const), ['-h, --help', 'this help'] as const];
  const width = Math.max(...rows.map(([name]) => name.length));
  const table = rows.map(([name, text]) => `  ${name.padEnd(width)}  ${text}`).join('\n');
  return [usage, about.trim(), table, ...(exitCodes === undefined ? [] : [`exit codes: ${exitCodes}`])].join('\n\n');
}

/** What a flag gives, then in brackets whether it is required (alone or with the other of its pair), its default, and that it repeats. */
function flagDescription(name: string, flags: Flags): string {
  const flag = flags[name]!;
  const partner = partnerOf(name, flags);
  const required = flag.required ?? (partner !== undefined && flags[partner]!.or === name && flags[partner]!.required);
  const pairing = partner === undefined ? undefined : required ? `required: this or --${partner}` : `not with --${partner}`;
  const fallback = flag.default ?? flag.defaultText;
  const notes = [pairing ?? (required ? 'required' : undefined), fallback === undefined ? undefined : `default: ${fallback}`, flag.multiple ? 'repeat for more' : undefined].filter(Boolean);
  return notes.length === 0 ? flag.help : `${flag.help} (${notes.join('; ')})`;
}

/** The command a usage line is about: its words up to the first argument (`probekit search-engine check`). */
function commandOf(usage: string): string {
  const words = usage.split(' ');
  const end = words.findIndex((word) => !/^[a-z][a-z-]*$/.test(word));
  return words.slice(0, end < 0 ? undefined : end).join(' ');
}

/** The flag meant by a mistyped one: the closest name, or the flags it begins (`--password` → `--password-env`). */
function meantFlags(given: string, flags: readonly string[]): string[] {
  const closest = closestName(given, flags);
  if (closest !== undefined) return [closest];
  return given.length >= 2 ? flags.filter((flag) => flag.startsWith(given)) : [];
}

/** Node's parse error, in our words: the flag as given, what is wrong, and where the flags are listed. */
function flagMistake(error: Error & { code?: string }, options: OptionSpec, usage: string): string {
  const help = `see ${commandOf(usage)} --help`;
  const quoted = /'([^']+)'/.exec(error.message)?.[1] ?? '';
  const flag = quoted.split(' ')[0]!;
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const meant = meantFlags(flag.replace(/^-+/, ''), Object.keys(options)).map((name) => `--${name}`);
      return `${flag}: unknown flag; ${meant.length > 0 ? `did you mean ${meant.join(' or ')}?` : help}`;
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/does not take an argument/.test(error.message)) return `${flag}: takes no value; write ${flag} alone`;
      if (/ambiguous/.test(error.message)) return `${flag}: needs a value, and the next argument starts with -; write ${flag}=VALUE if the value does`;
      return `${flag}: needs a value (${flag} VALUE)`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument "${quoted}"; ${help}`;
    default:
      return `${error.message.split('. ')[0]}; ${help}`;
  }
}

/**
 * Strict flag parsing: `--help` and `-h` raise a HelpRequest for `usage` (the usage line, or a helpText); an unknown
 * or malformed flag is a UsageError naming it and, for a typo, the flag meant, and so is a required flag not given.
 */
export function parseFlags<T extends OptionSpec>(
  args: readonly string[],
  options: T,
  usage: string,
  allowPositionals = false,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; strict: true; allowPositionals: boolean }>> {
  const withHelp = { ...options, help: { type: 'boolean', short: 'h' } } as const;
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options: withHelp, strict: true, allowPositionals });
  } catch (error) {
    // Help wins over a mistake elsewhere on the line: who asks for help is still learning the flags.
    if (args.some((arg) => HELP.includes(arg))) throw new HelpRequest(`usage: ${usage}\n`);
    throw new UsageError(flagMistake(error as Error, options, usage));
  }
  if ((parsed.values as { help?: boolean }).help) throw new HelpRequest(`usage: ${usage}\n`);
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const hint = (name: string) => (options[name] as Partial<Flag> | undefined)?.help ?? `see ${commandOf(usage)} --help`;
  for (const [name, option] of Object.entries(options) as Array<[string, Partial<Flag>]>) {
    if (option.or !== undefined) checkPair(name, values[name], option.or, values[option.or], option.required === true, `${hint(name)}, or ${hint(option.or)}`);
    else if (option.required) required(values[name] as string | undefined, name, hint(name));
  }
  return parsed as unknown as ReturnType<typeof parseArgs<{ args: string[]; options: T; strict: true; allowPositionals: boolean }>>;
}

function required(value: string | undefined, flag: string, hint: string): string {
  if (value === undefined || value === '') throw new UsageError(`--${flag} is required: ${hint}`);
  return value;
}

/** The two flags of a pair (Flag.or) as given: never both; one of them when `needed`. */
function checkPair(first: string, firstValue: unknown, second: string, secondValue: unknown, needed: boolean, hint: string): void {
  if (firstValue !== undefined && secondValue !== undefined) throw new UsageError(`--${first} and --${second} exclude each other: give one of them`);
  if (needed && firstValue === undefined && secondValue === undefined) throw new UsageError(`--${first} or --${second} is required: ${hint}`);
}
