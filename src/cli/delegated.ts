/**
 * Commands that another package provides: `probekit assistant` and `probekit search-engine` come with
 * `@probekit/assistant`, which a construct user does not install (it brings the Elasticsearch client, the MCP SDK and
 * OpenTelemetry). The dispatcher lists them in its help all the same; run, they load the package's commands module
 * when it is installed, and say in one line how to install it when it is not: exit 1, since the command line is
 * right and what is missing is a package, or 0 with that line on stdout when help was asked for.
 */
import { version } from '../../package.json';
import { CommandFailure, commandGroup, HelpRequest, type Command, type Subcommand } from './command';

/** What a package's commands module exports (`<package>/cli`): each command's subcommands, by the command's name. */
export interface CommandsModule {
  readonly SUBCOMMANDS: Readonly<Record<string, Readonly<Record<string, Subcommand>>>>;
}

/** Loads a package's commands module; undefined when the package is not installed. */
export type CommandsLoader = () => CommandsModule | undefined;

/** `<packageName>/cli` as Node finds it from here (beside probekit in node_modules), or undefined when it finds none. */
export function installedCommands(packageName: string): CommandsLoader {
  return () => {
    let path: string;
    try {
      path = require.resolve(`${packageName}/cli`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return undefined;
      throw error;
    }
    // A module that fails to load (one of its own dependencies missing) is an error of its own, not "not installed".
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(path) as CommandsModule;
  };
}

/**
 * `probekit <name>`, a group of the subcommands that `packageName` provides under `name`; `summary` is the line of
 * `probekit --help`, which must show without the package.
 */
export function delegatedCommand(name: string, summary: string, packageName: string, load: CommandsLoader = installedCommands(packageName)): Command {
  const notInstalled = `probekit ${name} comes with the ${packageName} package, which is not installed here: npm install ${packageName}`;
  const group = (): Command | undefined => {
    const commands = load();
    if (commands === undefined) return undefined;
    const subcommands = commands.SUBCOMMANDS[name];
    if (subcommands === undefined) throw new CommandFailure(`the installed ${packageName} has no ${name} commands; install the one of this probekit's version: npm install ${packageName}@${version}`);
    return commandGroup(name, summary, subcommands);
  };
  return {
    summary,
    get usage() {
      return group()?.usage ?? `${notInstalled}\n`;
    },
    async run(args, io) {
      const installed = group();
      if (installed !== undefined) return installed.run(args, io);
      if (args.some((arg) => arg === '--help' || arg === '-h')) throw new HelpRequest(`${notInstalled}\n`);
      throw new CommandFailure(notInstalled);
    },
  };
}
