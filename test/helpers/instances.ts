import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { freePort } from '../../bench/processes.ts'
import { Users } from '../../src/core/access/users.ts'
import { openStore } from '../../src/core/store/database.ts'

const BIN = path.resolve(import.meta.dirname, '../../bin/switchyard.js')
const ENCRYPTION_KEY = '44'.repeat(32)

/** Where an instance keeps its data: a PGlite directory, or a PostgreSQL database shared by several. */
export type StoreAt = { dataDir: string; databaseUrl?: undefined } | { databaseUrl: string; dataDir: string }

export interface Instance {
  url: string
  process: ChildProcess
  /** Output so far, for failure messages. */
  output(): string
  /** SIGKILL: no shutdown, no lease handed back, nothing flushed. */
  kill9(): Promise<void>
  stop(): Promise<void>
}

/** Makes a user with an API key directly in the store, before (or beside) the instances that use it. */
export async function createUserIn(at: StoreAt): Promise<{ id: string; apiKey: string }> {
  const store = await openStore(at.databaseUrl ? { databaseUrl: at.databaseUrl } : { dataDir: at.dataDir })
  try {
    const users = new Users(store.db)
    const user = await users.create({
      email: `engine-${Math.random().toString(36).slice(2)}@example.test`,
      plan: 'enterprise',
      role: 'member',
    })
    return { id: user.id, apiKey: (await users.createApiKey(user.id)).key }
  } finally {
    await store.close()
  }
}

/**
 * Starts `switchyard start` as its own process on the given store, using the sandbox server the
 * test runs (so the sandbox's state outlives the instance), with a short run lease so that a
 * killed instance's runs are taken over within the test.
 */
export async function startInstance(
  at: StoreAt,
  sandboxUrl: string,
  env: Record<string, string> = {},
): Promise<Instance> {
  const port = await freePort()
  const child = spawn(process.execPath, [BIN, 'start'], {
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      PORT: String(port),
      SWITCHYARD_PUBLIC_URL: `http://127.0.0.1:${port}`,
      SWITCHYARD_DATA_DIR: at.dataDir,
      DATABASE_URL: at.databaseUrl ?? '',
      SWITCHYARD_SANDBOX_URL: sandboxUrl,
      SWITCHYARD_ENCRYPTION_KEY: ENCRYPTION_KEY,
      SWITCHYARD_RUN_LEASE_MS: '1500',
      SWITCHYARD_POLL_INTERVAL_SECONDS: '3600',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += String(chunk)
      if (/Switchyard is running at/.test(output)) resolve()
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code) => reject(new Error(`switchyard start exited with ${code}:\n${output}`)))
  })
  return {
    url: `http://127.0.0.1:${port}`,
    process: child,
    output: () => output,
    kill9: async () => {
      child.kill('SIGKILL')
      await exited
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}
