import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Users } from '../src/core/access/users.ts'
import { openStore } from '../src/core/store/database.ts'
import { scratchDatabase } from '../test/helpers/scratch-database.ts'
import { freePort, startChild } from './processes.ts'
import { TRIGGER_PLATFORMS, triggerBench } from './triggers.ts'

// The trigger bench alone (`node --import tsx bench/triggers-only.ts`), for working on the engine:
// every platform, or those named in BENCH_TRIGGER_PLATFORMS (such as `zendesk,vercel`), on the
// embedded store, or on PostgreSQL when BENCH_DATABASE_URL names a server (a database of its own
// is made there and dropped after). `npm run bench` runs it on both stores and writes
// docs/benchmarks.md.
const wanted = process.env.BENCH_TRIGGER_PLATFORMS?.split(',')
  .map((p) => p.trim())
  .filter(Boolean)
const platforms = wanted ? TRIGGER_PLATFORMS.filter((f) => wanted.includes(f.platform)) : TRIGGER_PLATFORMS
if (!platforms.length)
  throw new Error(
    `BENCH_TRIGGER_PLATFORMS names none of ${TRIGGER_PLATFORMS.map((f) => f.platform).join(', ')}`,
  )
// A database of its own on BENCH_DATABASE_URL's server, so no earlier run's rows are in the way.
const scratch = process.env.BENCH_DATABASE_URL
  ? await scratchDatabase(process.env.BENCH_DATABASE_URL, 'sy_bench')
  : undefined
const databaseUrl = scratch?.url
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-triggers-'))

/** On PostgreSQL the service writes no admin key file: the bench makes its own user and key first. */
async function postgresKey(url: string): Promise<string> {
  const store = await openStore({ databaseUrl: url })
  try {
    const users = new Users(store.db)
    const user = await users.create({ email: `bench-${Date.now()}@example.test`, plan: 'enterprise' })
    return (await users.createApiKey(user.id, 'bench')).key
  } finally {
    await store.close()
  }
}

const sandbox = await startChild(['sandbox', '--port', String(await freePort())], {}, /listening on (\S+)/)
const presetKey = databaseUrl ? await postgresKey(databaseUrl) : undefined
const service = await startChild(
  ['start'],
  {
    PORT: String(await freePort()),
    SWITCHYARD_DATA_DIR: dataDir,
    SWITCHYARD_SANDBOX_URL: sandbox.match[1],
    LOG_LEVEL: 'warn',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, SWITCHYARD_ENCRYPTION_KEY: '22'.repeat(32) } : {}),
  },
  /Switchyard is running at (\S+)/,
)
try {
  const apiKey = presetKey ?? fs.readFileSync(path.join(dataDir, 'admin-api-key'), 'utf8').trim()
  console.log(
    await triggerBench(
      { url: service.match[1], apiKey, pid: service.process.pid },
      sandbox.match[1],
      databaseUrl ? 'postgres' : 'pglite',
      platforms,
    ),
  )
} finally {
  await service.stop()
  await sandbox.stop()
  await scratch?.drop()
  fs.rmSync(dataDir, { recursive: true, force: true })
}
