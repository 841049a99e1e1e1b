/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

// Tests run the TypeScript sources directly (SWC strips types; `tsc -b` is the type check).
// Workspace packages resolve to their sources so a test never runs stale build output.
const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/packages', '<rootDir>/docker', '<rootDir>/scripts'],
  testMatch: ['**/src/**/*.test.ts', '<rootDir>/docker/*.test.ts', '<rootDir>/scripts/*.test.ts'],
  // `*.root.test.ts` need root (a real Postfix's master): `npm run test:root`, which .ci/run runs after `npm test`.
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '\\.root\\.test\\.ts$'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }] },
  moduleNameMapper: {
    '^@mailer/(config|logger|domain|db|dns|queue|testing|message|operations|sdk)$': '<rootDir>/packages/$1/src',
    '^@mailer/(api|worker|inbound|submission)$': '<rootDir>/apps/$1/src',
    '^@mailer/api/testing$': '<rootDir>/apps/api/src/testing',
    '^@mailer/inbound/testing$': '<rootDir>/apps/inbound/src/testing/inbound-harness',
    '^@mailer/submission/testing$': '<rootDir>/apps/submission/src/testing/submission-harness',
  },
  globalSetup: '<rootDir>/packages/testing/src/global-setup.ts',
  globalTeardown: '<rootDir>/packages/testing/src/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/packages/testing/src/close-leftovers.ts'],
  testTimeout: 30000,
  // Without it jest runs every file in its main process on a 2-core machine (one worker): the
  // modules each file loads stay on the heap (1 GB after a few dozen files), and collecting
  // several GB stalls a test for seconds, longer than the harnesses' SMTP timeouts. A worker
  // grown past this after a file is replaced by a fresh one.
  workerIdleMemoryLimit: '1GB',
  reporters: ['default', '<rootDir>/scripts/jest-summary-reporter.js'],
};

export default config;
