import fs from 'node:fs'
import pg from 'pg'

/**
 * Under CI nothing is skipped silently: the browser suite needs Chromium and the PostgreSQL suites
 * need TEST_DATABASE_URL. Locally they skip when those are absent; under CI=true their absence
 * fails the whole run before any test starts (docs/architecture.md, "Tests").
 */
export default async function checkCiRequirements(): Promise<void> {
  if (process.env.CI !== 'true') return
  const problems: string[] = []
  // Both of .ci/run's passes (Node.js 20 and the LTS line) run every suite, so both need both.
  if (!fs.existsSync('/usr/bin/chromium'))
    problems.push('Chromium is missing at /usr/bin/chromium (apt-get install chromium)')
  const url = process.env.TEST_DATABASE_URL
  if (!url) problems.push('TEST_DATABASE_URL is not set')
  else {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 })
    try {
      await client.connect()
      await client.query('select 1')
    } catch (err) {
      problems.push(`TEST_DATABASE_URL does not answer: ${(err as Error).message}`)
    } finally {
      await client.end().catch(() => {})
    }
  }
  if (problems.length)
    throw new Error(`CI=true but the test requirements are missing:\n- ${problems.join('\n- ')}`)
}
