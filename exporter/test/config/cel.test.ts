/**
 * Compiling a CEL expression at load: what upstream's cel-go refuses as an undeclared reference (a variable other
 * than body, a function CEL has not) is refused here too, and nothing valid is; see test/probers/http/cel.integration.test.ts
 * for the expressions evaluated against bodies.
 */
import { compileCel } from '../../src/config/cel';

const VALID = [
  "body.foo == 'bar' && body.baz.startsWith('q')",
  'body.status.checks.exists(c, !c.ok) && body.count > 2',
  'body.status.checks.all(c, c.ok)',
  'body.items.map(x, x * 2.0).size() > 0',
  'body.items.filter(x, x > 1.0).size() == 1',
  'body.items.exists_one(x, x == 1.0)',
  'body.items.all(x, body.items.exists(y, x == y))',
  'body.m.all(k, body.m[k] > 0.0)',
  'has(body.a) && has(body.a.b)',
  'body == null',
  'size(body.items) > 0 && body.a.endsWith("x") || body.a.contains("y") || body.a.matches("^x")',
  'int(body.n) == 3 && double(body.n) > 1.0 && string(body.n) == "3" && uint(1) == 1u && bytes("a") == b"a" && bool(body.b)',
  'type(body) == map && type(body.a) == string && type(body.n) == double && type(body.l) == list && null_type == type(null)',
  'google.protobuf.Timestamp == type(timestamp("2030-01-01T00:00:00Z"))',
  'timestamp(body.t).getFullYear() > 2000 && duration("1s") > duration("0s")',
  'body.x in [1, 2] && "k" in body && body["a-b"] == 1 && {"a": 1}.a == 1 && [1, 2][0] == 1',
  'body.a == 1 ? !(body.b == 2) : -1 < 0',
  'dyn(body) == body',
];

const UNDECLARED: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['bdy.status == 1', ['bdy']],
  ['has(bdy.a)', ['bdy']],
  ['foo(body)', ['foo']],
  ['body.foo()', ['foo']],
  ['timestamp(body.t) < now', ['now']],
  ['body.items.exists(x, y > 1)', ['y']],
  ['body.items.exists(x, x > 1) && x > 1', ['x']],
  ['[x, {"a": q}]', ['x', 'q']],
];

describe('compileCel', () => {
  it.each(VALID)('accepts %s', (source) => {
    expect(compileCel(source).source).toBe(source);
  });

  it.each(UNDECLARED)('refuses %s, naming what it refers to', (source, names) => {
    expect(() => compileCel(source)).toThrow(new RegExp(`^${names.map((name) => `undeclared reference to '${name}'`).join(', ')} \\(the expression's one variable is body`));
  });

  it('a macro variable is in scope inside its macro only', () => {
    expect(() => compileCel('body.a.exists(v, v == 1) && body.b.exists(v, v == 2)')).not.toThrow();
    expect(() => compileCel('body.a.exists(v, body.b.exists(w, v == w))')).not.toThrow();
    expect(() => compileCel('body.a.exists(v, body.b.exists(w, v == w)) && w == 1')).toThrow(/undeclared reference to 'w'/);
  });

  it('refuses an expression nested deeper than the parser goes with a message, and walks deep ones it parses', () => {
    expect(() => compileCel(`${'['.repeat(5000)}body${']'.repeat(5000)} == 1`)).toThrow(/^nested too deeply to parse/);
    expect(() => compileCel(`size(${'['.repeat(90)}body${']'.repeat(90)}) == 1`)).not.toThrow();
  });
});
