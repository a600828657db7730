// Three projects: fast unit specs beside the source; integration specs under test/ that run on
// a real Kafka broker (started by test/support/global-setup.ts unless KAFKA_BROKERS is set) and
// the machine's real Redis; and the manifests under deploy/, rendered and validated offline
// (test/deploy). NestJS 12 is ESM: jest loads it through require(esm), which needs Node >= 24.9
// and --experimental-vm-modules (see package.json "test").
const { availableParallelism } = require('node:os');

const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] };
// Nest and class-transformer read decorator metadata; entry points import this, tests get it here.
const setupFiles = ['reflect-metadata'];

/** @type {import('jest').Config} */
module.exports = {
  // Integration specs spend most of their time waiting (for a group join, a window to close, a
  // rate's minute, a child process), not computing, so several spec files at once shorten the
  // suite even on two cores. Each spec owns its topics, groups and Redis prefix
  // (test/support/kafka-helpers.ts uniqueName), so they never see one another's records.
  maxWorkers: Math.max(3, availableParallelism() - 1),
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform,
      setupFiles,
      // The @mailbridge/contracts package's specs run against its build (dist), as users get it;
      // the chaos harness's judgement and the benchmark's reports are specified beside them.
      roots: [
        '<rootDir>/src',
        '<rootDir>/packages/contracts/test',
        '<rootDir>/chaos',
        '<rootDir>/bench',
      ],
      testMatch: ['**/*.spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/unit-timeout.ts'],
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      transform,
      setupFiles,
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.int-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      slowTestThreshold: 30,
      setupFilesAfterEnv: ['<rootDir>/test/support/integration-timeout.ts'],
    },
    {
      // The Kubernetes manifests under deploy/, rendered and validated offline (no broker).
      displayName: 'deploy',
      testEnvironment: 'node',
      // kubernetes-models and its KEDA models are ES modules that export for `import` only.
      testEnvironmentOptions: { customExportConditions: ['node', 'import'] },
      transform,
      setupFiles,
      roots: ['<rootDir>/test/deploy'],
      testMatch: ['**/*.deploy-spec.ts'],
    },
  ],
};
