import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Users } from '../src/core/access/users.ts'
import { openStore, type Db, type StoreOptions } from '../src/core/store/database.ts'
import { scratchDatabase } from '../test/helpers/scratch-database.ts'
import { freePort, startChild } from './processes.ts'

/** A bench line's Switchyard: the service and the sandboxes as processes, on a store of its own. */
export interface ServiceStack {
  url: string
  sandboxUrl: string
  /** An enterprise user's key, made on the store before the service starts. */
  apiKey: string
  /** The service's process id, for its CPU and memory. */
  pid: number | undefined
  /** The sandboxes' process id: they share the machine's cores with the service. */
  sandboxPid: number | undefined
  /** The scratch database's URL on PostgreSQL, for reading its own backends' CPU. */
  databaseUrl: string | undefined
  /** Stops both processes and removes the store (the scratch database, or the data folder). */
  stop(): Promise<void>
}

/**
 * Starts the sandboxes and the service on the embedded store, or on a scratch database made from
 * BENCH_DATABASE_URL for 'postgres'. `seed` writes into the store before the service meets it.
 */
export async function startServiceStack(
  kind: 'pglite' | 'postgres',
  options: { name: string; seed?: (db: Db) => Promise<unknown> },
): Promise<ServiceStack> {
  const scratch =
    kind === 'postgres'
      ? await scratchDatabase(process.env.BENCH_DATABASE_URL!, `sy_bench_${options.name}`)
      : undefined
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `switchyard-bench-${options.name}-`))
  const storeOptions: StoreOptions = scratch ? { databaseUrl: scratch.url } : { dataDir }
  const store = await openStore(storeOptions)
  let apiKey: string
  try {
    await options.seed?.(store.db)
    // A user of its own on every store: the service makes its first admin (and admin-api-key) only
    // on a store without users, and a seeded one may already have its owner.
    const users = new Users(store.db)
    const user = await users.create({ email: `bench-${Date.now()}@example.test`, plan: 'enterprise' })
    apiKey = (await users.createApiKey(user.id, 'bench')).key
  } finally {
    await store.close()
  }
  const sandbox = await startChild(['sandbox', '--port', String(await freePort())], {}, /listening on (\S+)/)
  const service = await startChild(
    ['start'],
    {
      PORT: String(await freePort()),
      SWITCHYARD_DATA_DIR: dataDir,
      SWITCHYARD_SANDBOX_URL: sandbox.match[1]!,
      LOG_LEVEL: 'warn',
      ...(scratch ? { DATABASE_URL: scratch.url, SWITCHYARD_ENCRYPTION_KEY: '22'.repeat(32) } : {}),
    },
    /Switchyard is running at (\S+)/,
  )
  return {
    url: service.match[1]!,
    sandboxUrl: sandbox.match[1]!,
    apiKey,
    pid: service.process.pid,
    sandboxPid: sandbox.process.pid,
    databaseUrl: scratch?.url,
    stop: async () => {
      await service.stop()
      await sandbox.stop()
      await scratch?.drop()
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
