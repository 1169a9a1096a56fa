/**
 * Rules across fields that the schema cannot say on its own, as upstream checks them at load time: a module
 * has no section of another prober, its own section is complete, and each prober's own rules hold. Each
 * problem comes with the path of the field it concerns, so the loader can point at its line.
 */
import type { Module } from './schema';
import { formatPath, schemaProblems, type Problem } from '../contract/problems';
import { PROBER_DEFINITIONS, PROBER_NAMES } from '../probers/registry';
import type { ProberDefinition } from '../probers/definition';

/** Problems of one module that passed the schema. */
export function validateModule(name: string, module: Module): Problem[] {
  const problems: Problem[] = [];
  const base = ['modules', name];
  for (const section of PROBER_NAMES) {
    if (section !== module.prober && module[section] !== undefined) {
      problems.push({ path: [...base, section], message: `module has prober ${module.prober} but a ${section} section; rename the section or the prober` });
    }
  }
  const definition: ProberDefinition = PROBER_DEFINITIONS[module.prober];
  const section = module[module.prober];
  if (section === undefined) {
    // A section left out gets its defaults, unless it has a field without one (dns's query_name).
    const empty = definition.schema.safeParse({});
    if (!empty.success) {
      const missing = schemaProblems(definition.schema, empty.error.issues, [module.prober]).map((problem) => formatPath(problem.path));
      problems.push({ path: [...base, 'prober'], message: `a ${module.prober} module needs its ${module.prober} section; add ${missing.join(', ')}` });
    }
    return problems;
  }
  for (const problem of definition.rules(section)) problems.push({ ...problem, path: [...base, module.prober, ...problem.path] });
  return problems;
}
