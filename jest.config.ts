import type { Config } from 'jest';

const config: Config = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  setupFiles: ['<rootDir>/test/setup.ts'],
  // One throwaway PostgreSQL cluster for the run: the stores' suites run on it beside SQLite (test/support/postgres.ts).
  globalSetup: '<rootDir>/test/postgres-setup.ts',
  globalTeardown: '<rootDir>/test/postgres-teardown.ts',
  transform: {
    '^.+\\.ts$': ['ts-jest', {}],
    // The CEL library ships ES modules only; Jest on Node 20 cannot require them, so they are compiled to CommonJS.
    '/node_modules/@marcbachmann/cel-js/.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!@marcbachmann/cel-js/)'],
  testTimeout: 30000,
  maxWorkers: 2,
};

export default config;
