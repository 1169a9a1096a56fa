/**
 * The assistant's commands, as `probekit`'s dispatcher loads them when this package is installed: the subcommands
 * of `probekit assistant` and `probekit search-engine`, whose failures reach the dispatcher in its own terms (the
 * CLI framework of `probekit/cli`): a skill's bad input is a mistake in the command line (exit 2), a search
 * engine's refusal a failure (exit 1).
 */
import { CommandFailure, UsageError, type Subcommand } from 'probekit/cli';
import { SearchEngineError } from '../connection';
import { SkillInputError } from '../skill';
import { ASSISTANT_SUBCOMMANDS } from './assistant';
import { SEARCH_ENGINE_SUBCOMMANDS } from './search-engine';

function inDispatcherTerms(subcommands: Readonly<Record<string, Subcommand>>): Readonly<Record<string, Subcommand>> {
  return Object.fromEntries(
    Object.entries(subcommands).map(([name, { usage, run }]) => [
      name,
      {
        usage,
        async run(args, io) {
          try {
            return await run(args, io);
          } catch (error) {
            if (error instanceof SkillInputError) throw new UsageError(error.message);
            if (error instanceof SearchEngineError) throw new CommandFailure(error.message);
            throw error;
          }
        },
      } satisfies Subcommand,
    ]),
  );
}

/** Each command's subcommands, by the command's name (`probekit <name> <subcommand>`). */
export const SUBCOMMANDS: Readonly<Record<string, Readonly<Record<string, Subcommand>>>> = {
  assistant: inDispatcherTerms(ASSISTANT_SUBCOMMANDS),
  'search-engine': inDispatcherTerms(SEARCH_ENGINE_SUBCOMMANDS),
};
