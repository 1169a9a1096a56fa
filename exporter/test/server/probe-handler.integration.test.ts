/**
 * What /probe shows of a target that holds a password: the status page, /logs, the exporter's log and its
 * metrics never show it, whatever else the target holds (a stray %, a NUL, a space, non-ASCII), for every
 * prober that reads a target with user info in it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Logger } from '../../src/log';
import { Exporter } from '../../src/server/exporter-server';
import { freePort } from '../../loopback/reference-exporter';

const CONFIG = `modules:
  http_2xx:
    prober: http
    timeout: 2s
  tcp_connect:
    prober: tcp
    timeout: 2s
`;

describe('a target with a password in it', () => {
  let dir: string;
  let exporter: Exporter;
  let base: string;
  let closedPort: number;
  const logLines: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'probekit-masking-'));
    writeFileSync(join(dir, 'blackbox.yml'), CONFIG);
    exporter = new Exporter({ configFile: join(dir, 'blackbox.yml'), timeoutOffsetSeconds: 0.5, historyLimit: 5, log: new Logger('debug', (line) => logLines.push(line), 'logfmt', 'debug') });
    await exporter.reload();
    base = `http://127.0.0.1:${await exporter.listen('127.0.0.1', 0)}`;
    closedPort = await freePort();
  });

  afterAll(async () => {
    await exporter.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const text = async (path: string): Promise<string> => (await fetch(`${base}${path}`)).text();

  /** Everything the exporter shows after probing `target`: the probe's answer, the status page, the probe's /logs, its own metrics, its log. */
  async function shownAfterProbing(module: string, target: string): Promise<string> {
    logLines.length = 0;
    const answer = await text(`/probe?module=${module}&target=${encodeURIComponent(target)}&debug=true`);
    const page = await text('/');
    const id = [...page.matchAll(/logs\?id=(\d+)/g)].map((match) => Number(match[1]))[0];
    return [answer, page, await text(`/logs?id=${id}`), await text('/metrics'), ...logLines].join('\n');
  }

  it('shows the password of the target that showed it before nowhere (a stray % made masking fail open)', async () => {
    const shown = await shownAfterProbing('http_2xx', `http://alice:hunter2@127.0.0.1:${closedPort}/ok?discount=50%off`);
    expect(shown).toContain(`alice:<secret>@127.0.0.1:${closedPort}/ok?discount=50%off`);
    expect(shown).not.toContain('hunter2');
  });

  it('shows no password anywhere, whatever the target holds around it', async () => {
    // A password of word characters alone could be a word the page or the metrics hold anyway (length, error).
    const password = fc
      .string({ unit: 'binary', minLength: 6, maxLength: 16 })
      .filter((candidate) => !/[/\\?#]/.test(candidate) && !/^[\w .:=-]*$/.test(candidate) && candidate.trim() === candidate && !candidate.includes('<secret>'));
    const rest = fc.constantFrom('/ok?discount=50%off', '/a%zz', '/%00', '/ x', '/\u00e9t\u00e9', '/%', '');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('http_2xx', 'tcp_connect'), password, rest, async (module, secret, path) => {
        const target = module === 'http_2xx' ? `http://alice:${secret}@127.0.0.1:${closedPort}${path}` : `alice:${secret}@127.0.0.1:${closedPort}`;
        const shown = await shownAfterProbing(module, target);
        const escaped = secret.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
        expect(shown).toContain('alice:<secret>@');
        expect(shown).not.toContain(secret);
        expect(shown).not.toContain(escaped);
        expect(shown).not.toContain(JSON.stringify(secret).slice(1, -1));
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
