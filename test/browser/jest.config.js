// The browser suite (npm run test:browser): the real service (dist/, with the dashboard app built
// into dist/dashboard/) on a fresh database, driven by Chromium through playwright-core. Needs
// Chromium at /usr/bin/chromium (apt-get install -y chromium) or CHROMIUM_PATH.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const root = require('../../jest.config.js');

const e2e = root.projects.find((project) => project.displayName === 'e2e');

// A template database of its own, so this suite never drops the e2e suite's copies.
process.env.TEST_DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/campaign_api_test_browser';

/** @type {import('jest').Config} */
module.exports = {
  displayName: 'browser',
  rootDir: '../..',
  transform: e2e.transform,
  transformIgnorePatterns: e2e.transformIgnorePatterns,
  moduleFileExtensions: e2e.moduleFileExtensions,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/browser/**/*.browser-spec.ts'],
  // One Chromium at a time.
  maxWorkers: 1,
  testTimeout: 60_000,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFiles: ['<rootDir>/test/support/env.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/support/file-database.ts'],
};
