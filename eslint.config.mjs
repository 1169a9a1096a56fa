// `npm run lint`: ESLint's and typescript-eslint's recommended rules, the promise rules that need type information,
// and the boundaries between the packages. Formatting is Prettier's (`npm run format`), not ESLint's.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

// Import boundaries. Another package is used only through its entry point (`@probekit/exporter`, `probekit` and its
// command-line framework `probekit/cli`, `@probekit/assistant`), never through a deep path or a relative path into its
// folder; the library does not depend on the assistant (the dispatcher loads the assistant's commands when it is
// installed); the Pulumi program is no library; tests are not imported by what ships. Package exports make the same deep imports fail at run time (test/package/exports.integration.test.ts).
//
// One exception, for tests and the benchmark only: exporter/loopback/, the loopback servers (DNS, TCP, gRPC health),
// the throw-away TLS fixtures and the harness that starts the reference exporter and ours. Every package's tests and
// the exporter's benchmark need them, and the benchmark may not import test folders, so they sit in a folder of
// their own; in the exporter package because the gRPC health server serves the exporter's own health definition.
// They are not part of the contract (nor of the published package), so there is no entry point to import them by.
const EXPORTER_DEEP = { regex: '^@probekit/exporter/', message: "Import the exporter's contract from '@probekit/exporter', its only entry point." };
const EXPORTER_RELATIVE = { regex: '^\\.\\.?/(.*/)?exporter/', message: "Import the exporter's contract from '@probekit/exporter'; the exporter's own folders are its business." };
const EXPORTER_BEYOND_LOOPBACK = { ...EXPORTER_RELATIVE, regex: '^\\.\\.?/(.*/)?exporter/(?!loopback/)' };
const BENCH_OUTSIDE = { regex: '^\\.\\./(?!loopback/)', message: "The benchmark uses '@probekit/exporter', the exporter it starts and the servers of exporter/loopback." };
const LOOPBACK = { regex: '^\\.\\.?/(.*/)?loopback(/|$)', message: 'exporter/loopback/ holds servers for tests and the benchmark, not part of what ships.' };
const STACKS = { regex: '^(@probekit/stacks|\\.\\.?/(.*/)?stacks)(/|$)', message: 'stacks/ is the Pulumi program, not a library: move what you need into src/.' };
const TESTS = { regex: '^\\.\\.?/(.*/)?test(/|$)', message: 'Test files are not part of what this folder ships or runs.' };
const ROOT_PACKAGE = { regex: '^probekit(/|$)', message: 'The exporter does not depend on the construct library.' };
const LIBRARY_DEEP = { regex: '^probekit/(?!cli$)', message: "Import the library from 'probekit', or its command-line framework from 'probekit/cli': its entry points." };
// From assistant/src/<file>, ../../src/ is the library's folder (from a deeper file no one writes it for the assistant's own).
const LIBRARY_RELATIVE = { regex: '^(\\.\\./){2,}src(/|$)', message: "Import the library from 'probekit' or 'probekit/cli'; its folders are its business." };
const ASSISTANT = {
  regex: '^(@probekit/assistant|\\.\\.?/(.*/)?assistant)(/|$)',
  message: "The library does not depend on the assistant: the dispatcher loads the assistant's commands when it is installed (src/cli/delegated.ts).",
};
const ASSISTANT_DEEP = { regex: '^@probekit/assistant/', message: "Import the assistant from '@probekit/assistant', its entry point ('/cli' is the dispatcher's)." };
const ASSISTANT_RELATIVE = { regex: '^\\.\\.?/(.*/)?assistant/', message: "Import the assistant from '@probekit/assistant'; its folders are its business." };
const ASSISTANT_BEYOND_SUPPORT = { ...ASSISTANT_RELATIVE, regex: '^\\.\\.?/(.*/)?assistant/(?!test/support/)' };

const restrictImports = (severity, ...patterns) => ({ 'no-restricted-imports': [severity, { patterns }] });

export default defineConfig(
  { ignores: ['**/node_modules/', 'lib/', 'dist/', 'assistant/lib/', 'exporter/lib/', 'exporter/dist/', 'exporter/native/build/', 'coverage/', 'cdk8s.out/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A promise nobody awaits or catches is an unhandled rejection (which ends the process) or a step that runs
      // after the code that needs it; the servers, probers and tests are full of them. These need type information.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // tsc reports unused names already (noUnusedLocals, noUnusedParameters), with its own rules for `_` names.
      '@typescript-eslint/no-unused-vars': 'off',
    },
  },
  {
    files: ['test/**', 'exporter/test/**', 'assistant/test/**', 'stacks/test/**'],
    rules: {
      // Tests look into parsed manifests and YAML, and load modules anew with require() on purpose.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    // Build scripts, configs and CommonJS fixtures, run by node as they are: no type information.
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  { files: ['**/*.js'], languageOptions: { sourceType: 'commonjs', globals: { __dirname: 'readonly' } } },
  { files: ['src/**', 'examples/**'], rules: restrictImports('error', EXPORTER_DEEP, EXPORTER_RELATIVE, STACKS, TESTS, ASSISTANT) },
  { files: ['test/**'], rules: restrictImports('error', EXPORTER_DEEP, EXPORTER_BEYOND_LOOPBACK, STACKS) },
  { files: ['assistant/src/**'], rules: restrictImports('error', EXPORTER_DEEP, EXPORTER_RELATIVE, LIBRARY_DEEP, LIBRARY_RELATIVE, STACKS, TESTS) },
  // The assistant's tests use the library's test helpers (test/support: runCli, describeWithBinaries) as the Pulumi program's do.
  { files: ['assistant/test/**'], rules: restrictImports('error', EXPORTER_DEEP, EXPORTER_BEYOND_LOOPBACK, LIBRARY_DEEP, STACKS) },
  { files: ['stacks/**'], rules: restrictImports('error', EXPORTER_DEEP, EXPORTER_RELATIVE, ASSISTANT_DEEP, ASSISTANT_RELATIVE) },
  // The Pulumi program's tests start the assistant's Elasticsearch-contract server (assistant/test/support).
  { files: ['stacks/test/**'], rules: restrictImports('error', EXPORTER_DEEP, EXPORTER_BEYOND_LOOPBACK, ASSISTANT_DEEP, ASSISTANT_BEYOND_SUPPORT) },
  { files: ['exporter/**'], rules: restrictImports('error', ROOT_PACKAGE, STACKS) },
  { files: ['exporter/src/**'], rules: restrictImports('error', ROOT_PACKAGE, STACKS, TESTS, LOOPBACK) },
  // The benchmark uses these servers too, so they must not lean on test folders either.
  { files: ['exporter/loopback/**'], rules: restrictImports('error', ROOT_PACKAGE, STACKS, TESTS) },
  // The exporter's benchmark runs the exporter as its users do, through the contract and the exporter process it
  // starts, against the loopback servers: nothing else of the exporter's folder, and no tests.
  { files: ['exporter/bench/**'], rules: restrictImports('error', EXPORTER_DEEP, ROOT_PACKAGE, STACKS, TESTS, BENCH_OUTSIDE) },
  // The library's benchmark (synthesis) uses the library's sources, and nothing of the tests.
  { files: ['bench/**'], rules: restrictImports('error', EXPORTER_DEEP, EXPORTER_RELATIVE, STACKS, TESTS) },
);
