/**
 * Properties of the config loader over generated files: a valid config always loads, and reads the same
 * however it is spelled among the spellings upstream's decoder takes (YAML 1.1 booleans, hexadecimal and
 * octal numbers, durations with fractions, merge keys); random YAML, random bytes and mutated valid files
 * are loaded or refused with a ConfigError, never anything else, and never take long.
 */
import fc from 'fast-check';
import { stringify } from 'yaml';
import { ConfigError, configText, parseConfig, type LoadedConfig } from '../../src/config/load';

/** A YAML double-quoted scalar of any text: every character outside printable ASCII escaped. */
function quoted(text: string): string {
  return `"${[...text].map((character) => (/^[ !#-[\]-~]$/.test(character) ? character : `\\U${character.codePointAt(0)!.toString(16).padStart(8, '0')}`)).join('')}"`;
}

/** A value, and how it is written: a spelling upstream reads as that value. */
interface Written<T> {
  readonly value: T;
  readonly yaml: string;
}

const TRUE_SPELLINGS = ['true', 'True', 'TRUE', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', 'y', 'Y', '"yes"', "'on'"];
const FALSE_SPELLINGS = ['false', 'False', 'FALSE', 'no', 'No', 'NO', 'off', 'Off', 'OFF', 'n', 'N', '"no"', "'off'"];
const boolean: fc.Arbitrary<Written<boolean>> = fc.boolean().chain((value) => fc.constantFrom(...(value ? TRUE_SPELLINGS : FALSE_SPELLINGS)).map((yaml) => ({ value, yaml })));

const integer = (min: number, max: number): fc.Arbitrary<Written<number>> =>
  fc
    .integer({ min, max })
    .chain((value) =>
      fc
        .constantFrom(String(value), `0x${value.toString(16)}`, `0o${value.toString(8)}`, `${value}.0`, value > 999 ? `${String(value).slice(0, -3)}_${String(value).slice(-3)}` : String(value))
        .map((yaml) => ({ value, yaml })),
    );

/** Text, written quoted, or plain when YAML would read it as a number (a text field takes it as written). */
const text: fc.Arbitrary<Written<string>> = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 20 }).map((value) => ({ value, yaml: quoted(value) })),
  fc.integer({ min: 1, max: 99_999 }).map((number) => ({ value: String(number), yaml: String(number) })),
);

/** A Go duration of whole milliseconds, in one of its spellings. */
const duration: fc.Arbitrary<Written<number>> = fc
  .integer({ min: 1, max: 600_000 })
  .chain((ms) => fc.constantFrom(`${ms}ms`, `${ms / 1000}s`, `${Math.floor(ms / 60_000)}m${(ms % 60_000) / 1000}s`, `${ms * 1000}us`).map((yaml) => ({ value: ms, yaml })));

const pattern: fc.Arbitrary<Written<string>> = fc.oneof(
  fc.constantFrom('^HTTP/1\\.[01] 200', '(?i)error', '\\pL+', '[[:alpha:]]+', '^(?P<host>\\S+)$', '(?U)a+', 'ok|up').map((value) => ({ value, yaml: quoted(value) })),
  fc
    .string({ maxLength: 10 })
    .filter((literal) => !literal.includes('\\E'))
    .map((literal) => ({ value: `\\Q${literal}\\E`, yaml: quoted(`\\Q${literal}\\E`) })),
);

/** A YAML mapping of `fields` (some left out), indented by `indent`, and the values it holds. */
function mapping(fields: Record<string, fc.Arbitrary<Written<unknown>>>, indent: string): fc.Arbitrary<Written<Record<string, unknown>>> {
  return fc.record(fields, { requiredKeys: [] }).map((record) => {
    const entries = Object.entries(record) as Array<[string, Written<unknown>]>;
    return {
      value: Object.fromEntries(entries.map(([key, field]) => [key, field.value])),
      yaml: entries.map(([key, field]) => `${indent}${key}: ${field.yaml.includes('\n') ? `\n${field.yaml}` : field.yaml}\n`).join(''),
    };
  });
}

function list<T>(item: fc.Arbitrary<Written<T>>, maxLength = 3): fc.Arbitrary<Written<T[]>> {
  return fc.array(item, { maxLength }).map((items) => ({ value: items.map((entry) => entry.value), yaml: `[${items.map((entry) => entry.yaml).join(', ')}]` }));
}

const headerName = fc.stringMatching(/^X-[A-Za-z0-9]{1,8}$/);

const sections: Record<string, fc.Arbitrary<Written<Record<string, unknown>>>> = {
  http: mapping(
    {
      method: fc.constantFrom('GET', 'POST', 'HEAD').map((value) => ({ value, yaml: value })),
      valid_status_codes: list(integer(100, 599)),
      fail_if_ssl: boolean,
      fail_if_not_ssl: boolean,
      follow_redirects: boolean,
      enable_http2: boolean,
      preferred_ip_protocol: fc.constantFrom('ip4', 'ip6').map((value) => ({ value, yaml: value })),
      fail_if_body_matches_regexp: list(pattern),
      headers: fc.dictionary(headerName, text, { maxKeys: 3 }).map((headers) => ({
        value: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, value.value])),
        yaml: `{${Object.entries(headers)
          .map(([name, value]) => `${name}: ${value.yaml}`)
          .join(', ')}}`,
      })),
    },
    '      ',
  ),
  tcp: mapping(
    {
      tls: boolean,
      query_response: list(
        mapping({ expect: pattern, send: text }, '').map((step) => ({ value: step.value, yaml: `{${step.yaml.trim().split('\n').join(', ')}}` })),
        2,
      ),
    },
    '      ',
  ),
  dns: fc
    .tuple(
      text.filter((name) => name.value !== ''),
      mapping({ query_type: fc.constantFrom('A', 'AAAA', 'MX', 'TXT', 'ANY').map((value) => ({ value, yaml: value })), recursion_desired: boolean }, '      '),
    )
    .map(([name, rest]) => ({ value: { query_name: name.value, ...rest.value }, yaml: `      query_name: ${name.yaml}\n${rest.yaml}` })),
  icmp: mapping({ ttl: integer(0, 255), payload_size: integer(0, 1000), dont_fragment: boolean }, '      '),
  grpc: mapping({ service: text, tls: boolean }, '      '),
};

interface GeneratedModule {
  readonly prober: string;
  readonly timeout?: Written<number>;
  readonly section: Written<Record<string, unknown>>;
}

/** A valid module: its prober, maybe a timeout, its section; and the values it holds. */
const anyModule: fc.Arbitrary<GeneratedModule> = fc
  .constantFrom(...Object.keys(sections))
  .chain((prober) => fc.record({ prober: fc.constant(prober), timeout: fc.option(duration, { nil: undefined }), section: sections[prober] }, { requiredKeys: ['prober', 'section'] }));

/**
 * Writes modules. With `merged`, each module's prober comes through a merge key: from a mapping anchored
 * in the first module of that prober, and from its alias in the others.
 */
function configYaml(modules: ReadonlyArray<readonly [string, GeneratedModule]>, merged: boolean): string {
  const anchored = new Set<string>();
  const body = modules.map(([name, m]) => {
    let head = `    prober: ${m.prober}\n`;
    if (merged) {
      head = anchored.has(m.prober) ? `    <<: *${m.prober}\n` : `    <<: &${m.prober} { prober: ${m.prober} }\n`;
      anchored.add(m.prober);
    }
    const timeout = m.timeout ? `    timeout: ${m.timeout.yaml}\n` : '';
    return `  ${quoted(name)}:\n${head}${timeout}    ${m.prober}:${m.section.yaml === '' ? ' {}' : ''}\n${m.section.yaml}`;
  });
  return `modules:\n${body.join('')}`;
}

/**
 * Loads `text`, or the ConfigError it was refused with; any other error fails the property. A load that
 * blew up (an alias expanded without bound, a pattern compiled by backtracking) fails by the test's timeout;
 * how long a load takes is the benchmark's to say, not this machine's clock.
 */
function load(text: string | Buffer): LoadedConfig | ConfigError {
  try {
    return parseConfig(typeof text === 'string' ? text : configText(text, 'blackbox.yml'), 'blackbox.yml');
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
}

describe('config file properties', () => {
  it('a valid config loads, with the values it was written with, however upstream lets them be spelled', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), anyModule), { minLength: 1, maxLength: 5, selector: ([name]) => name }), (modules) => {
        const loaded = load(configYaml(modules, false));
        if (loaded instanceof ConfigError) throw new Error(`refused:\n${loaded.message}\n${configYaml(modules, false)}`);
        // A mapping has no order (JavaScript puts keys like "0" first); the names are what count.
        expect(Object.keys(loaded.modules).sort()).toEqual(modules.map(([name]) => name).sort());
        for (const [name, m] of modules) {
          const written = loaded.modules[name].written as unknown as Record<string, unknown>;
          expect(written[m.prober]).toMatchObject(m.section.value);
          expect(loaded.modules[name].timeoutMs).toBe(m.timeout?.value);
        }
        const viaMerge = load(configYaml(modules, true));
        if (viaMerge instanceof ConfigError) throw new Error(`refused with merge keys:\n${viaMerge.message}`);
        expect(Object.fromEntries(Object.entries(viaMerge.modules).map(([name, m]) => [name, m.written]))).toEqual(
          Object.fromEntries(Object.entries(loaded.modules).map(([name, m]) => [name, m.written])),
        );
      }),
      { numRuns: 300 },
    );
  });

  /** Pieces of YAML syntax and of the config's vocabulary. */
  const TOKENS = [
    'modules:',
    'prober:',
    ' http',
    ' tcp',
    'timeout:',
    ' 5s',
    ' 1.5s',
    'http:',
    'headers:',
    '\n',
    '\n  ',
    '\n    ',
    '  ',
    '- ',
    ': ',
    ', ',
    '&a ',
    '*a',
    '<<: ',
    '---\n',
    '...\n',
    '"',
    "'",
    '[',
    ']',
    '{',
    '}',
    '#',
    '|',
    '>',
    '!!binary ',
    '!!str ',
    '!!int ',
    '? ',
    'yes',
    '~',
    '0x1F',
    '\t',
    '%YAML 1.2\n',
    '\u0000',
    '\u0085',
    'é',
    '\ufeff',
    '\\',
  ];

  it('random YAML is loaded or refused with a ConfigError', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...TOKENS), { maxLength: 60 }), (tokens) => {
        load(tokens.join(''));
      }),
      { numRuns: 2000 },
    );
  });

  it('any value written as YAML, any text and any bytes are loaded or refused with a ConfigError', () => {
    fc.assert(
      fc.property(fc.anything({ maxDepth: 4 }), (value) => {
        load(stringify({ modules: value }));
        load(stringify(value));
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.uint8Array({ maxLength: 200 }), (anyText, bytes) => {
        load(anyText);
        load(Buffer.from(bytes));
      }),
      { numRuns: 1000 },
    );
  });

  it('a valid config cut, spliced or repeated anywhere is loaded or refused with a ConfigError', () => {
    const mutation = fc.oneof(
      fc.tuple(fc.constant('delete' as const), fc.nat(), fc.nat({ max: 20 })),
      fc.tuple(fc.constant('insert' as const), fc.nat(), fc.constantFrom(...TOKENS)),
      fc.tuple(fc.constant('repeat' as const), fc.nat(), fc.nat({ max: 80 })),
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), anyModule), { minLength: 1, maxLength: 3, selector: ([name]) => name }),
        fc.array(mutation, { minLength: 1, maxLength: 5 }),
        (modules, mutations) => {
          let text = configYaml(modules, false);
          for (const [kind, at, what] of mutations) {
            const position = at % (text.length + 1);
            if (kind === 'delete') text = text.slice(0, position) + text.slice(position + what);
            else if (kind === 'insert') text = text.slice(0, position) + what + text.slice(position);
            else text = text.slice(0, position) + text.slice(position, position + what) + text.slice(position);
          }
          load(text);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
