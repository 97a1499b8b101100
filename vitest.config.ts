import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'scripts/**/*.test.ts'],
    // Integration tests start real servers and databases; give them room on a loaded 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Under CI=true a missing Chromium or database fails the run instead of skipping suites.
    globalSetup: ['test/setup/ci-requirements.ts'],
  },
})
