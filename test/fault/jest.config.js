// The fault-injection suite (npm run test:fault): real service processes from dist/ (or
// FAULT_SERVICE_DIST), outages made by TCP proxies the suite controls. One scenario at a time:
// they measure timings and would disturb each other on a small machine.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const root = require('../../jest.config.js');

const e2e = root.projects.find((project) => project.displayName === 'e2e');

/** @type {import('jest').Config} */
module.exports = {
  displayName: 'fault',
  rootDir: __dirname,
  transform: e2e.transform,
  transformIgnorePatterns: e2e.transformIgnorePatterns,
  moduleFileExtensions: e2e.moduleFileExtensions,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/**/*.fault-spec.ts'],
  maxWorkers: 1,
  // Each test sets its own limit; this one only catches a test that forgot to.
  testTimeout: 180_000,
  globalSetup: '<rootDir>/support/global-setup.ts',
  globalTeardown: '<rootDir>/support/global-teardown.ts',
};
