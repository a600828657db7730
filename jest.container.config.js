// The container test (npm run test:container; .ci/run calls it after npm test): builds the image
// from the Dockerfile and runs it, and docker-compose.yml, against a real broker (the same global
// set-up as the integration specs) and the machine's Redis. Not part of `npm test`: it needs a
// Docker engine (scripts/container/dockerd.sh starts one as root) and builds images.
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] };

/** @type {import('jest').Config} */
module.exports = {
  displayName: 'container',
  testEnvironment: 'node',
  transform,
  setupFiles: ['reflect-metadata'],
  roots: ['<rootDir>/test/container'],
  testMatch: ['**/*.container-spec.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};
