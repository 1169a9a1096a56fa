/** What an input is refused with, as the user reads it: one line per problem, `path: message`. */
import { formatProblem, ProblemsError } from '@probekit/exporter';

/**
 * The problems `run` throws, each formatted without its source; fails the test when `run` succeeds or
 * throws anything but problems.
 */
export function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ProblemsError) return error.problems.map((problem) => formatProblem(problem));
    throw error;
  }
  throw new Error('expected problems, but the input was accepted');
}
