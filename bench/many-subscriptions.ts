import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Users } from '../src/core/access/users.ts'
import { openStore, type StoreOptions } from '../src/core/store/database.ts'
import { scratchDatabase } from '../test/helpers/scratch-database.ts'
import { seedManySubscriptions } from '../test/helpers/many-subscriptions.ts'
import { trelloDeliveries } from './deliveries/trello.ts'
import { freePort, startChild } from './processes.ts'
import { platformBench } from './triggers.ts'

// Many subscriptions (issue 22, sections 7 and 9): Trello intake and trigger latency on a store that
// also holds 1,000 integrations with 10,000 active subscriptions, against the same on a store with
// only the measured one, on the embedded store and, when BENCH_DATABASE_URL names a server, on
// PostgreSQL. Goal: within 1.5× of one subscription. The large store is written straight into the
// tables (test/helpers/many-subscriptions.ts) and not analyzed: the service meets it as it was left.
// `node --import tsx bench/many-subscriptions.ts`; `npm run bench` runs it too.

const round = (n: number) => Math.round(n * 1000) / 1000

async function onStore(kind: 'pglite' | 'postgres', many: boolean): Promise<Record<string, number>> {
  const scratch =
    kind === 'postgres' ? await scratchDatabase(process.env.BENCH_DATABASE_URL!, 'sy_bench_many') : undefined
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-many-'))
  const options: StoreOptions = scratch ? { databaseUrl: scratch.url } : { dataDir }
  const store = await openStore(options)
  let apiKey = ''
  try {
    if (many) await seedManySubscriptions(store.db, { integrations: 1_000, perWebhook: 10, tag: 'many' })
    // A user of its own on every store: the service makes its first admin (and admin-api-key) only
    // on a store without users, and the large one already has the seeded owner.
    {
      const users = new Users(store.db)
      const user = await users.create({ email: `bench-${Date.now()}@example.test`, plan: 'enterprise' })
      apiKey = (await users.createApiKey(user.id, 'bench')).key
    }
  } finally {
    await store.close()
  }
  const sandbox = await startChild(['sandbox', '--port', String(await freePort())], {}, /listening on (\S+)/)
  const service = await startChild(
    ['start'],
    {
      PORT: String(await freePort()),
      SWITCHYARD_DATA_DIR: dataDir,
      SWITCHYARD_SANDBOX_URL: sandbox.match[1],
      LOG_LEVEL: 'warn',
      ...(scratch ? { DATABASE_URL: scratch.url, SWITCHYARD_ENCRYPTION_KEY: '22'.repeat(32) } : {}),
    },
    /Switchyard is running at (\S+)/,
  )
  try {
    return await platformBench(
      { url: service.match[1], apiKey, pid: service.process.pid },
      sandbox.match[1],
      trelloDeliveries,
      kind,
    )
  } finally {
    await service.stop()
    await sandbox.stop()
    await scratch?.drop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

export async function manySubscriptionsBench(): Promise<Record<string, number>> {
  const stores: Array<'pglite' | 'postgres'> = [
    'pglite',
    ...(process.env.BENCH_DATABASE_URL ? ['postgres' as const] : []),
  ]
  // The machine is shared: its load when the line began says how far to trust the numbers.
  const results: Record<string, number> = {
    many_subscriptions_load_average: Math.round(os.loadavg()[0]! * 100) / 100,
  }
  for (const kind of stores) {
    const one = await onStore(kind, false)
    const many = await onStore(kind, true)
    const key = `trello_${kind}`
    const intakeOne = one[`intake_${key}_per_s`]!
    const intakeMany = many[`intake_${key}_per_s`]!
    const p99One = one[`trigger_latency_${key}_p99_ms`]!
    const p99Many = many[`trigger_latency_${key}_p99_ms`]!
    Object.assign(results, {
      [`many_subscriptions_${kind}_intake_one_per_s`]: intakeOne,
      [`many_subscriptions_${kind}_intake_many_per_s`]: intakeMany,
      [`many_subscriptions_${kind}_intake_ratio`]: round(intakeMany / intakeOne),
      // Each against a bare server measured beside it: on a shared machine the load moves between
      // the two halves, and this ratio moves less with it.
      [`many_subscriptions_${kind}_intake_one_to_bare`]: one[`intake_${key}_ratio_to_bare`]!,
      [`many_subscriptions_${kind}_intake_many_to_bare`]: many[`intake_${key}_ratio_to_bare`]!,
      // CPU per delivery (service, and PostgreSQL's processes) moves least with the machine's load.
      [`many_subscriptions_${kind}_cpu_us_one`]:
        one[`intake_${key}_service_cpu_us_per_delivery`]! +
        (one[`intake_${key}_postgres_cpu_us_per_delivery`] ?? 0),
      [`many_subscriptions_${kind}_cpu_us_many`]:
        many[`intake_${key}_service_cpu_us_per_delivery`]! +
        (many[`intake_${key}_postgres_cpu_us_per_delivery`] ?? 0),
      [`many_subscriptions_${kind}_latency_p99_one_ms`]: p99One,
      [`many_subscriptions_${kind}_latency_p99_many_ms`]: p99Many,
      [`many_subscriptions_${kind}_latency_p99_ratio`]: round(p99Many / Math.max(p99One, 1)),
    })
    console.log(
      `many subscriptions on ${kind}: intake ${intakeMany}/s against ${intakeOne}/s (${round(intakeMany / intakeOne)}×), trigger latency p99 ${p99Many} ms against ${p99One} ms`,
    )
  }
  return results
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await manySubscriptionsBench())
