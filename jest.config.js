/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // Each package's tests beside it: the library's in test/, the exporter's and the stacks' in their folders.
  roots: ['<rootDir>/test', '<rootDir>/exporter/test', '<rootDir>/stacks/test'],
  testMatch: ['**/*.test.ts'],
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
