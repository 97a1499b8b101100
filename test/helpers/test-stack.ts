import net from 'node:net'
import type { DestinationStream } from 'pino'
import { afterAll, beforeAll } from 'vitest'
import { loadConfig, type Config } from '../../src/core/config.ts'
import { openStore } from '../../src/core/store/database.ts'
import type { Plan, Role } from '../../src/core/store/schema.ts'
import { buildApp } from '../../src/server/app.ts'
import { createServices, openSandboxes, type Services } from '../../src/services.ts'
import { scratchDatabase } from './scratch-database.ts'

export interface TestStack {
  url: string
  sandboxUrl: string
  apiKey: string
  userId: string
  services: Services
  /** The PostgreSQL database this stack runs on, for a second stack to share (undefined on PGlite). */
  databaseUrl?: string
  /** A member on the given plan (enterprise by default); the first user of the stack is an admin. */
  createUser(plan?: Plan, role?: Role): Promise<{ id: string; apiKey: string }>
  close(): Promise<void>
}

/**
 * A whole stack on loopback for tests: in-memory PGlite, or a PostgreSQL database of its own made on
 * the `databaseUrl` server and dropped on close. Every process on a database executes any queued run
 * in it, so test files sharing one would take each other's runs to the wrong sandbox; a second
 * instance of the same deployment passes the first's `databaseUrl` with `sharedDatabase`.
 */
export type TestStackOptions = NonNullable<Parameters<typeof startTestStack>[0]>

/**
 * Two instances of one deployment on a scratch PostgreSQL database (TEST_DATABASE_URL), started before
 * the suite's tests and closed after them, the second first: the first makes the database and the
 * sandboxes, the second shares both. `started` hands them to the suite's own variables.
 */
export function twoInstances(
  started: (first: TestStack, second: TestStack) => void,
  options: { first?: TestStackOptions; second?: TestStackOptions } = {},
): void {
  let first: TestStack | undefined
  let second: TestStack | undefined
  beforeAll(async () => {
    first = await startTestStack({ databaseUrl: process.env.TEST_DATABASE_URL, ...options.first })
    second = await startTestStack({
      databaseUrl: first.databaseUrl,
      sharedDatabase: true,
      sandboxUrl: first.sandboxUrl,
      ...options.second,
    })
    started(first, second)
  }, 120_000)
  afterAll(async () => {
    await second?.close()
    await first?.close()
  })
}

export async function startTestStack(
  options: {
    databaseUrl?: string
    sharedDatabase?: boolean
    sandboxUrl?: string
    env?: NodeJS.ProcessEnv
    logDestination?: DestinationStream
    cacheTtlMs?: number
    config?: Partial<Config>
    webDist?: string
    backoff?: Parameters<typeof createServices>[1]['backoff']
    /** false: this instance runs no worker or poller (another instance on the same database does). */
    engine?: boolean
    runIdlePollMs?: number
  } = {},
): Promise<TestStack> {
  const port = await freePort()
  const base: Config = {
    ...loadConfig({}),
    ...options.config,
    port,
    publicUrl: `http://127.0.0.1:${port}`,
    encryptionKey: '11'.repeat(32),
    sandboxUrl: options.sandboxUrl,
  }
  const sandbox = await openSandboxes(base, { port: 0 })
  const config: Config = { ...base, sandboxUrl: sandbox.url }
  const scratch =
    options.databaseUrl && !options.sharedDatabase ? await scratchDatabase(options.databaseUrl) : undefined
  const databaseUrl = scratch?.url ?? options.databaseUrl
  const store = await openStore(databaseUrl ? { databaseUrl } : { memory: true })
  const services = await createServices(config, {
    sandboxes: sandbox.bindings,
    identity: sandbox.identity,
    modelSandbox: sandbox.model,
    store,
    env: options.env ?? {},
    cacheTtlMs: options.cacheTtlMs,
    backoff: options.backoff,
    engine: options.engine,
    runIdlePollMs: options.runIdlePollMs,
  })
  const app = await buildApp(services, { logDestination: options.logDestination, webDist: options.webDist })
  await app.listen({ port, host: '127.0.0.1' })
  const createUser = async (plan: Plan = 'enterprise', role: Role = 'member') => {
    const user = await services.users.create({
      email: `user-${Math.random().toString(36).slice(2)}@example.test`,
      plan,
      role,
    })
    return { id: user.id, apiKey: (await services.users.createApiKey(user.id)).key }
  }
  const first = await createUser('enterprise', 'admin')
  return {
    url: config.publicUrl,
    sandboxUrl: sandbox.url!,
    apiKey: first.apiKey,
    userId: first.id,
    services,
    databaseUrl,
    createUser,
    async close() {
      await app.close()
      await services.close()
      await sandbox.close()
      await scratch?.drop()
    },
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}
