/**
 * The lint rules that keep the packages apart (eslint.config.mjs), run on imports as each folder might write them:
 * another package only through its entry point, the Pulumi program imported by nobody, tests by nothing that ships,
 * the loopback servers (exporter/loopback) by tests and the exporter's benchmark alone.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const ERROR = 2;

/**
 * no-restricted-imports' severity (0 where it does not apply) for each `import '<specifier>'` in a file at `path`,
 * linted with the repository's configuration in one node process (ESLint loads its configuration as an ES module,
 * which jest's module system cannot).
 */
async function boundaries(cases: readonly (readonly [path: string, specifier: string])[]): Promise<number[]> {
  const script = `
    import { ESLint } from 'eslint';
    import tseslint from 'typescript-eslint';
    // Without type information: the files are not on disk for the project service, and these rules need none.
    const eslint = new ESLint({ cwd: process.cwd(), overrideConfig: tseslint.configs.disableTypeChecked });
    const severities = [];
    for (const [path, specifier] of JSON.parse(process.argv[1])) {
      const [result] = await eslint.lintText('import ' + JSON.stringify(specifier) + ';\\n', { filePath: path });
      const fatal = result.messages.find((message) => message.fatal);
      if (fatal) throw new Error(path + ': ' + fatal.message);
      severities.push(Math.max(0, ...result.messages.filter((message) => message.ruleId === 'no-restricted-imports').map((message) => message.severity)));
    }
    console.log(JSON.stringify(severities));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(cases)], { cwd: ROOT });
  return JSON.parse(stdout) as number[];
}

const CASES: readonly (readonly [path: string, specifier: string, severity: number])[] = [
  ['src/model/boundary.ts', '@probekit/exporter/lib/src/config/load', ERROR],
  ['src/model/boundary.ts', '@probekit/exporter/package.json', ERROR],
  ['src/model/boundary.ts', '../../exporter/src/config/load', ERROR],
  ['src/model/boundary.ts', '@probekit/exporter', 0],
  ['src/model/boundary.ts', '../../test/support/integration', ERROR],
  ['src/model/boundary.ts', '../../stacks/objects', ERROR],
  ['src/model/boundary.ts', '@probekit/stacks', ERROR],
  ['src/model/boundary.ts', '../render/exporter-config', 0],
  ['src/model/boundary.ts', '../../exporter/loopback/tls-fixtures', ERROR],
  ['test/model/boundary.test.ts', '../../exporter/src/config/load', ERROR],
  ['test/model/boundary.test.ts', '../../stacks/objects', ERROR],
  ['test/model/boundary.test.ts', '../support/integration', 0],
  ['test/model/boundary.test.ts', '../../exporter/loopback/tls-fixtures', 0],
  ['test/model/boundary.test.ts', '../../src/model/spec', 0],
  ['stacks/boundary.ts', '../exporter/src/config/load', ERROR],
  ['stacks/boundary.ts', 'probekit', 0],
  ['stacks/boundary.ts', '../exporter/loopback/tls-fixtures', ERROR],
  ['stacks/test/boundary.test.ts', '../../exporter/loopback/tls-fixtures', 0],
  ['stacks/test/boundary.test.ts', '../../exporter/src/config/load', ERROR],
  ['exporter/test/boundary.test.ts', '../src/config/load', 0],
  ['exporter/test/boundary.test.ts', '../loopback/tls-fixtures', 0],
  ['exporter/src/boundary.ts', 'probekit', ERROR],
  ['exporter/src/boundary.ts', '@probekit/stacks', ERROR],
  ['exporter/src/boundary.ts', '../loopback/tls-fixtures', ERROR],
  ['exporter/src/boundary.ts', '../test/support/probe-run', ERROR],
  ['exporter/loopback/boundary.ts', '../src/probers/grpc/health', 0],
  ['exporter/loopback/boundary.ts', '../test/support/probe-run', ERROR],
  ['exporter/loopback/boundary.ts', '../../test/support/integration', ERROR],
  ['exporter/bench/boundary.ts', '@probekit/exporter', 0],
  ['exporter/bench/boundary.ts', './target-server', 0],
  ['exporter/bench/boundary.ts', '../loopback/tls-fixtures', 0],
  ['exporter/bench/boundary.ts', '../src/probers/icmp/socket', ERROR],
  ['exporter/bench/boundary.ts', '../test/support/probe-run', ERROR],
  ['exporter/bench/boundary.ts', '../../test/support/integration', ERROR],
  ['exporter/bench/boundary.ts', '../../src/model', ERROR],
  ['exporter/bench/boundary.ts', 'probekit', ERROR],
  ['src/cli/boundary.ts', '@probekit/assistant', ERROR],
  ['src/cli/boundary.ts', '@probekit/assistant/cli', ERROR],
  ['src/cli/boundary.ts', '../../assistant/src/connection', ERROR],
  ['src/cli/boundary.ts', '../render/skills-server', 0],
  ['assistant/src/boundary.ts', 'probekit/cli', 0],
  ['assistant/src/boundary.ts', 'probekit', 0],
  ['assistant/src/boundary.ts', 'probekit/lib/cli/command', ERROR],
  ['assistant/src/boundary.ts', '../../src/cli/command', ERROR],
  ['assistant/src/cli/boundary.ts', '../../../src/cli/command', ERROR],
  ['assistant/src/cli/boundary.ts', '../connection', 0],
  ['assistant/src/boundary.ts', '@probekit/exporter', 0],
  ['assistant/src/boundary.ts', '../../exporter/src/config/load', ERROR],
  ['assistant/src/boundary.ts', '../test/support/elasticsearch', ERROR],
  ['assistant/test/boundary.test.ts', './support/elasticsearch', 0],
  ['assistant/test/boundary.test.ts', '../src/connection', 0],
  ['assistant/test/boundary.test.ts', '../../test/support/integration', 0],
  ['assistant/test/boundary.test.ts', '../../exporter/loopback/tls-fixtures', 0],
  ['assistant/test/boundary.test.ts', '../../exporter/src/config/load', ERROR],
  ['stacks/boundary.ts', '@probekit/assistant', 0],
  ['stacks/boundary.ts', '@probekit/assistant/cli', ERROR],
  ['stacks/boundary.ts', '../assistant/src/connection', ERROR],
  ['stacks/test/boundary.test.ts', '../../assistant/test/support/elasticsearch', 0],
  ['stacks/test/boundary.test.ts', '../../assistant/src/connection', ERROR],
  ['bench/boundary.ts', '../src/model', 0],
  ['bench/boundary.ts', '../test/support/integration', ERROR],
  ['bench/boundary.ts', '../exporter/loopback/tls-fixtures', ERROR],
];

it('another package only through its entry point, the assistant not by the library, stacks by nobody, tests by nothing that ships, nor by the benchmarks', async () => {
  const severities = await boundaries(CASES.map(([path, specifier]) => [path, specifier]));
  expect(CASES.map(([path, specifier], index) => `${path}: ${specifier} → ${severities[index]}`)).toEqual(CASES.map(([path, specifier, severity]) => `${path}: ${specifier} → ${severity}`));
}, 120_000);
