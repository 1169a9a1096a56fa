/**
 * Properties of the regexp engine over generated patterns: every pattern compiles or is refused with a
 * RegexpError (never another error), a compiled one matches any input without stalling, and where Go's
 * and JavaScript's syntax mean the same, both engines agree.
 */
import fc from 'fast-check';
import { compileGoRegexp, RegexpError, type GoRegexp } from '../../src/config/regexp';

/** Pieces of Go regexp syntax, the valid and the refused, that generated patterns are made of. */
const ATOMS = [
  'a',
  'b',
  '.',
  '\\d',
  '\\w',
  '\\s',
  '\\pL',
  '\\p{Greek}',
  '[ab]',
  '[^a]',
  '[[:alpha:]]',
  '[[:^digit:]]',
  '\\Q(.)\\E',
  '\\x{263a}',
  '\\b',
  '^',
  '$',
  '\\A',
  '\\z',
  '(?i)',
  '(?s)',
  '(?U)',
  '\\1',
  '(?=a)',
  '(?<=a)',
  '[',
  ')',
  '\\',
  'é',
];
const QUANTIFIERS = ['', '', '*', '+', '?', '*?', '{2}', '{1,3}', '{0,}', '{1001}', '{1000}', '**'];

const anyPattern: fc.Arbitrary<string> = fc.letrec<{ pattern: string }>((tie) => ({
  pattern: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(fc.constantFrom(...ATOMS), fc.constantFrom(...QUANTIFIERS)).map(([atom, quantifier]) => atom + quantifier),
    fc.array(tie('pattern'), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('')),
    fc.tuple(tie('pattern'), tie('pattern')).map(([left, right]) => `${left}|${right}`),
    fc.tuple(fc.constantFrom('(', '(?:', '(?P<n>', '(?<m>', '(?i:'), tie('pattern'), fc.constantFrom(...QUANTIFIERS)).map(([open, inner, quantifier]) => `${open}${inner})${quantifier}`),
  ),
})).pattern;

/** Inputs that make backtracking engines take exponential time (from some 30 characters on) or quadratic. */
const adversarial = fc
  .tuple(fc.constantFrom('a', 'ab', 'x', 'é', ' '), fc.integer({ min: 500, max: 5000 }), fc.constantFrom('', '!', 'b', '\n', 'error'))
  .map(([unit, count, tail]) => unit.repeat(count) + tail);

function compiled(pattern: string): GoRegexp | undefined {
  try {
    return compileGoRegexp(pattern);
  } catch (error) {
    if (!(error instanceof RegexpError)) throw error;
    return undefined;
  }
}

describe('regexp properties', () => {
  it('a pattern compiles or is refused with a RegexpError, and matching never stalls', () => {
    fc.assert(
      fc.property(anyPattern, adversarial, (pattern, input) => {
        const regexp = compiled(pattern);
        if (regexp === undefined) return;
        // A backtracking engine takes minutes to ages on some of these, which fails the test by its timeout;
        // RE2's time grows with the input times the pattern's size (milliseconds here, npm run bench for figures).
        const found = regexp.test(input);
        const match = regexp.exec(input);
        expect(match !== null).toBe(found);
      }),
      { numRuns: 300 },
    );
  });

  it('any text at all compiles or is refused, never anything else', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (pattern) => {
        compiled(pattern);
      }),
      { numRuns: 1000 },
    );
  });

  /** Syntax that means the same in Go and in JavaScript, over inputs where their `.` agrees (no \r). */
  const sharedPattern: fc.Arbitrary<string> = fc.letrec<{ pattern: string }>((tie) => ({
    pattern: fc.oneof(
      { depthSize: 'small' },
      fc.tuple(fc.constantFrom('a', 'b', '.', '[ab]', '[^a]', '\\n', 'x'), fc.constantFrom('', '*', '+', '?', '*?', '+?', '{1,2}')).map(([atom, quantifier]) => atom + quantifier),
      fc.array(tie('pattern'), { minLength: 1, maxLength: 3 }).map((parts) => parts.join('')),
      fc.tuple(tie('pattern'), tie('pattern')).map(([left, right]) => `(?:${left}|${right})`),
      tie('pattern').map((inner) => `(${inner})`),
      tie('pattern').map((inner) => `^${inner}`),
      tie('pattern').map((inner) => `${inner}$`),
    ),
  })).pattern;

  it('where Go and JavaScript syntax mean the same, finds what JavaScript finds', () => {
    fc.assert(
      fc.property(sharedPattern, fc.string({ unit: fc.constantFrom('a', 'b', 'x', '\n'), maxLength: 12 }), (pattern, input) => {
        const expected = new RegExp(pattern).exec(input);
        const match = compileGoRegexp(pattern).exec(input);
        expect(match?.group(0)).toBe(expected?.[0]);
        expect(match?.group(1)).toBe(expected === null ? undefined : expected[1]);
      }),
      { numRuns: 1000 },
    );
  });
});
