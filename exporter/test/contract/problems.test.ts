import { z } from 'zod';
import { formatPath, formatProblem, ProblemsError, schemaProblems, type Problem } from '../../src/contract/problems';

const schema = z.strictObject({
  name: z.string().min(1),
  replicas: z.number().int().min(1).optional(),
  kind: z.enum(['http', 'tcp']).optional(),
  targets: z.array(z.string()).min(1).optional(),
  labels: z.record(z.string().regex(/^[a-z]+$/, 'must be lower-case letters'), z.string()).optional(),
  nested: z.strictObject({ method: z.string().optional() }).optional(),
});

function problemsOf(input: unknown): Problem[] {
  const result = schema.safeParse(input, { reportInput: true });
  return result.success ? [] : schemaProblems(schema, result.error.issues, ['spec']);
}

describe('problems', () => {
  it('formats paths as a user writes them', () => {
    expect(formatPath(['jobs', 0, 'targets'])).toBe('jobs[0].targets');
    expect(formatPath(['modules', 'my module', 'http'])).toBe('modules["my module"].http');
    expect(formatProblem({ path: ['a', 'b'], message: 'is required' }, { source: 'spec.yaml', line: 3 })).toBe('spec.yaml:3: a.b: is required');
    expect(formatProblem({ path: [], message: 'is empty' }, { source: 'spec.yaml' })).toBe('spec.yaml: is empty');
  });

  it("prints a problem's own line after its source, or alone without one", () => {
    const problem: Problem = { path: ['jobs', 0, 'modul'], message: 'unknown field', line: 7 };
    expect(new ProblemsError([problem], 'monitoring.yaml').message).toBe('monitoring.yaml:7: jobs[0].modul: unknown field');
    expect(formatProblem(problem)).toBe('line 7: jobs[0].modul: unknown field');
    expect(formatProblem(problem, { source: 'monitoring.yaml', line: 9 })).toBe('monitoring.yaml:9: jobs[0].modul: unknown field');
  });

  it('names problems found past parsing after the file they came from, and keeps a file already named', () => {
    const unnamed = new ProblemsError([{ path: ['jobs', 0, 'module'], message: 'is refused' }]);
    expect(unnamed.namedAfter('spec.yaml').message).toBe('spec.yaml: jobs[0].module: is refused');
    const named = new ProblemsError([{ path: ['scrape_configs'], message: 'is not a list' }], 'agent.yaml');
    expect(named.namedAfter('spec.yaml')).toBe(named);
  });

  it('says every schema problem in words, naming the field, with no library text', () => {
    const found = problemsOf({ replicas: 0, kind: 'udp', targets: [], labels: { Team: 'x' }, nested: { methd: 'GET' }, extra: 1 });
    expect(found.map((problem) => formatProblem(problem))).toEqual(
      expect.arrayContaining([
        'spec.name: is required',
        'spec.replicas: must be at least 1',
        'spec.kind: the text "udp" is not allowed; use one of http, tcp',
        'spec.targets: must list at least 1 entry',
        'spec.labels.Team: name must be lower-case letters',
        'spec.nested.methd: unknown field; did you mean "method"?',
        'spec.extra: unknown field; remove it; the fields here are name, replicas, kind, targets, labels, nested',
      ]),
    );
    expect(found).toHaveLength(7);
    expect(formatProblem(problemsOf({ name: 5 })[0]!)).toBe('spec.name: must be text, not number 5');
  });

  it.each([
    [z.string(), 5, 'must be text, not number 5', 'must be text, not a number'],
    [z.number(), 'five', 'must be a number, not the text "five"', 'must be a number, not text'],
    [z.number().int(), 1.5, 'must be a whole number, not number 1.5', 'must be a whole number, not a number'],
    [z.boolean(), 'yes', 'must be true or false, not the text "yes"', 'must be true or false, not text'],
    [z.array(z.string()), { a: 1 }, 'must be a list, not a mapping', 'must be a list, not a mapping'],
    [z.strictObject({}), [1], 'must be a mapping, not a list', 'must be a mapping, not a list'],
    [z.record(z.string(), z.string()), true, 'must be a mapping, not boolean true', 'must be a mapping, not a boolean'],
  ])('a wrong kind for %#: says the kind expected in words, and the value given or, withheld, its kind', (field, given, shown, withheld) => {
    const result = field.safeParse(given, { reportInput: true });
    expect(result.success).toBe(false);
    const issues = result.success ? [] : result.error.issues;
    expect(schemaProblems(field, issues).map((problem) => problem.message)).toEqual([shown]);
    expect(schemaProblems(field, issues, [], { withholdValues: true }).map((problem) => problem.message)).toEqual([withheld]);
  });
});
