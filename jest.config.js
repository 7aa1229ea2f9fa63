// Jest 30 can require() the ESM-only NestJS 12 packages natively only from Node 24.9; to keep
// Node 22 working, TypeScript and those packages go through @swc/jest into CommonJS.
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];
const shared = {
  transform: { '^.+\\.(t|j|mj)s$': swc },
  transformIgnorePatterns: [
    '/node_modules/(?!(@nestjs|@fastify|fastify|@faker-js|content-disposition|@marcbachmann)/)',
  ],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  testEnvironment: 'node',
};

/** @type {import('jest').Config} */
module.exports = {
  maxWorkers: 2,
  testTimeout: 30000,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      // packages/client: the API client and CSV importer (against fake servers; docs/client.md).
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/packages/*/test/**/*.spec.ts'],
    },
    {
      ...shared,
      displayName: 'e2e',
      // examples/: worked examples of extending the service (docs/architecture.md), kept tested.
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/examples/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFiles: ['<rootDir>/test/support/env.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/file-database.ts'],
    },
  ],
};
