/**
 * What src/cli/command.ts makes of a command's flags: the usage line, the --help table, and the parsing, for a flag
 * alone and for a pair (Flag.or) that gives one value two ways. The real commands' help is tested beside each:
 * test/cli/main.test.ts, assistant/test/cli/*.test.ts.
 */
import { helpText, HelpRequest, parseFlags, usageLine, UsageError, type Flags } from '../../src/cli/command';
import { helpNotes } from '../support/cli';

const FLAGS = {
  spec: { type: 'string', value: 'FILE', required: true, help: 'the spec' },
  'secret-env': { type: 'string', value: 'VAR', required: true, or: 'secret-file', help: 'the variable holding the secret' },
  'secret-file': { type: 'string', value: 'FILE', help: 'a file holding the secret' },
  insecure: { type: 'boolean', or: 'ca-file', help: 'skip verifying' },
  'ca-file': { type: 'string', value: 'FILE', defaultText: "the system's CAs", help: 'the CA' },
  job: { type: 'string', value: 'NAME', multiple: true, help: 'a job' },
  out: { type: 'string', short: 'o', value: 'DIR', default: 'dist', help: 'where to write' },
} as const satisfies Flags;

const USAGE = usageLine('probekit demo', FLAGS);

describe('usageLine', () => {
  it('writes a required flag bare, an optional one in brackets, a pair as one choice where its first flag stands', () => {
    expect(USAGE).toBe('probekit demo --spec FILE (--secret-env VAR | --secret-file FILE) [--insecure | --ca-file FILE] [--job NAME]... [--out DIR]');
  });

  it('finds the pair from either of its flags, whichever comes first', () => {
    const flags = { b: { type: 'string', help: 'b' }, a: { type: 'string', or: 'b', help: 'a' } } as const satisfies Flags;
    expect(usageLine('x', flags)).toBe('x [--a VALUE | --b VALUE]');
  });
});

describe('helpText', () => {
  const help = helpText(USAGE, FLAGS, 'Does a demo.', '0 done; 2 a mistake in the command line');

  it('is the usage, what the command does, a row per flag and the exit codes', () => {
    expect(help.split('\n\n')).toEqual([USAGE, 'Does a demo.', expect.stringMatching(/^ {2}--spec FILE/), 'exit codes: 0 done; 2 a mistake in the command line']);
  });

  it('says of each flag whether it is required, alone or as one of a pair, its default, and that it repeats', () => {
    expect(helpNotes(help)).toEqual({
      '--spec': 'required',
      '--secret-env': 'required: this or --secret-file',
      '--secret-file': 'required: this or --secret-env',
      '--insecure': 'not with --ca-file',
      '--ca-file': "not with --insecure; default: the system's CAs",
      '--job': 'repeat for more',
      '--out': 'default: dist',
      '--help': null,
    });
    expect(help).toContain('\n  -o, --out DIR ');
  });
});

describe('parseFlags', () => {
  const parse = (...args: string[]) => parseFlags(args, FLAGS, USAGE).values;

  it('fills in a default, and takes either flag of a pair', () => {
    expect(parse('--spec', 's.yaml', '--secret-env', 'S')).toEqual({ spec: 's.yaml', 'secret-env': 'S', out: 'dist' });
    expect(parse('--spec', 's.yaml', '--secret-file', 'f', '--ca-file', 'ca.pem')).toEqual({ spec: 's.yaml', 'secret-file': 'f', 'ca-file': 'ca.pem', out: 'dist' });
    expect(parse('--spec', 's.yaml', '--secret-file', 'f', '--insecure')).toMatchObject({ insecure: true });
  });

  it.each([
    [['--secret-env', 'S'], '--spec is required: the spec'],
    [['--spec', 's.yaml'], '--secret-env or --secret-file is required: the variable holding the secret, or a file holding the secret'],
    [['--spec', 's.yaml', '--secret-env', 'S', '--secret-file', 'f'], '--secret-env and --secret-file exclude each other: give one of them'],
    [['--spec', 's.yaml', '--secret-env', 'S', '--insecure', '--ca-file', 'ca.pem'], '--insecure and --ca-file exclude each other: give one of them'],
  ])('%j: a UsageError naming the flags', (args, message) => {
    expect(() => parse(...args)).toThrow(new UsageError(message));
  });

  it('answers --help before it checks what is required', () => {
    expect(() => parse('--help')).toThrow(HelpRequest);
  });
});
