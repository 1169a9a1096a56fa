// eslint-disable-next-line @typescript-eslint/no-require-imports -- jest reads this file as CommonJS
const { availableParallelism } = require('node:os');

/** @type {import('jest').Config} */
const shared = {
  testEnvironment: 'node',
  // Each package's tests beside it: the library's in test/, the exporter's, the assistant's and the stacks' in their folders.
  roots: ['<rootDir>/test', '<rootDir>/exporter/test', '<rootDir>/assistant/test', '<rootDir>/stacks/test'],
  // Packages import each other by name; the source condition resolves them to their TypeScript sources, so
  // tests never run against a stale build.
  testEnvironmentOptions: { customExportConditions: ['@probekit/source', 'node', 'node-addons'] },
  transform: {
    // Type checking is `npm run typecheck`'s job; transpiling only keeps the suite fast.
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 60000,
  snapshotFormat: { escapeString: false, printBasicPrototype: false },
};

/**
 * Two kinds of test, told apart by the file name (docs/development.md): unit tests (*.test.ts: no server, socket,
 * child process or worker thread; `npm run test:unit`) and integration tests (*.integration.test.ts: real
 * servers and programs). `npm test` runs both. A unit test file that listens, connects or starts a process or
 * thread fails, naming the fix (test/support/unit-guard.ts).
 */
const projects = [
  {
    ...shared,
    displayName: 'unit',
    testMatch: ['**/*.test.ts'],
    testPathIgnorePatterns: ['/node_modules/', '\\.integration\\.test\\.ts$'],
    setupFilesAfterEnv: ['<rootDir>/test/setup/unit.ts'],
  },
  {
    ...shared,
    displayName: 'integration',
    testMatch: ['**/*.integration.test.ts'],
    setupFilesAfterEnv: ['<rootDir>/test/setup/integration.ts'],
  },
];

// npm run test:unit and test:integration run one kind through this variable rather than jest's --selectProjects,
// which would take the paths given after it (npm run test:unit -- test/cli) for more project names.
const kind = process.env.PROBEKIT_TESTS;
if (kind !== undefined && !projects.some((project) => project.displayName === kind)) {
  throw new Error(`PROBEKIT_TESTS=${kind}: expected unit or integration (or unset, for both)`);
}

module.exports = {
  projects: projects.filter((project) => kind === undefined || project.displayName === kind),
  testTimeout: 60000,
  // One worker more than the cores: three on CI's two (jest's default is one fewer than the cores, a single worker
  // there; a percentage above 100 % is read as a count). Integration files spend most of their time waiting on the
  // servers and programs they start, so another file runs meanwhile.
  maxWorkers: availableParallelism() + 1,
  // A worker whose heap grew past this after a file is replaced before the next. Files leave their modules and
  // servers' remains in the worker: without a limit the heaps grew to 0.5 to 1.9 GB over the suite, and one full
  // collection of such a heap held a file's event loop for 1.5 s, failing tests that bound how long it may stall.
  workerIdleMemoryLimit: '512MB',
  // Slowest files first, from jest's timings of the last run or, on a fresh clone, each file's `@ci-seconds`.
  testSequencer: '<rootDir>/test/setup/sequencer.js',
};
