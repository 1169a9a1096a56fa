/**
 * Bad input to a skill (`input.limit: must be at least 1`), or a skill that cannot be used: problems naming the
 * field, printed after their source (the skill's name, or the flag that loaded it).
 */
import { ProblemsError, type Problem } from '@probekit/exporter';

export class SkillInputError extends ProblemsError {
  constructor(problems: readonly Problem[], source?: string) {
    super(problems, source);
    this.name = 'SkillInputError';
  }
}
