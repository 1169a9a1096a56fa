import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The sequencer is CommonJS, as jest loads it.
const SlowestFirst = require('./sequencer') as new (options: { contexts: unknown[]; globalConfig: unknown }) => {
  sort(tests: Array<{ path: string; context: unknown }>): Array<{ path: string }>;
};

describe('the test order on a fresh clone', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'probekit-sequencer-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  const file = (name: string, text: string): string => {
    const path = join(folder, name);
    writeFileSync(path, text);
    return path;
  };

  it('puts files by their @ci-seconds first, slowest first, then the others by size, largest first', () => {
    const small = file('small.test.ts', "/** Short, and slow. \n *\n * @ci-seconds 90\n */\nit('a', () => undefined);\n");
    const slower = file('slower.test.ts', "/**\n * @ci-seconds 120\n */\nit('b', () => undefined);\n");
    const large = file('large.test.ts', `/** Large, no estimate. */\n${"it('c', () => undefined);\n".repeat(200)}`);
    const tiny = file('tiny.test.ts', "it('d', () => undefined);\n");
    // No cache: jest's perf cache is read only when the config says so.
    const context = { config: { cache: false, cacheDirectory: folder, id: 'sequencer-test' }, hasteFS: { getSize: () => 0 } };
    const sequencer = new SlowestFirst({ contexts: [context], globalConfig: {} });
    const order = sequencer.sort([tiny, small, large, slower].map((path) => ({ path, context }))).map((test) => test.path);
    expect(order).toEqual([slower, small, large, tiny]);
  });
});
