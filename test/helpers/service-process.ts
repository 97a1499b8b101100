import { spawn, type ChildProcess } from 'node:child_process'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { freePort } from '../../bench/processes.ts'

/**
 * `switchyard start` as a child process, for the guarantees that only a real crash can test: a
 * `kill -9` mid-burst or mid-poll, a restart on the same port (so Trello's callback URL stays the
 * same), several processes on one PostgreSQL. The sandboxes run in the test process and are shared.
 */

const BIN = path.resolve(import.meta.dirname, '../../bin/switchyard.js')

export interface ServiceProcess {
  url: string
  child: ChildProcess
  output(): string
  /** `kill -9`: no shutdown, no flushing, whatever was in flight is cut off. */
  kill9(): Promise<void>
  stop(): Promise<void>
}

export interface ServiceEnv {
  port: number
  dataDir: string
  sandboxUrl: string
  databaseUrl?: string
  /** The address platforms call (a load balancer's, for several instances); the instance's own by default. */
  publicUrl?: string
  extra?: Record<string, string>
}

export async function serviceEnv(sandboxUrl: string, databaseUrl?: string): Promise<ServiceEnv> {
  return {
    port: await freePort(),
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'sy-engine-')),
    sandboxUrl,
    databaseUrl,
  }
}

export async function startService(env: ServiceEnv, timeoutMs = 60_000): Promise<ServiceProcess> {
  const url = `http://127.0.0.1:${env.port}`
  const child = spawn(process.execPath, [BIN, 'start'], {
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      PORT: String(env.port),
      SWITCHYARD_PUBLIC_URL: env.publicUrl ?? url,
      SWITCHYARD_SANDBOX_URL: env.sandboxUrl,
      SWITCHYARD_ENCRYPTION_KEY: '22'.repeat(32),
      SWITCHYARD_DATA_DIR: env.dataDir,
      DATABASE_URL: env.databaseUrl ?? '',
      ...env.extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`switchyard start did not get ready:\n${output}`)),
      timeoutMs,
    )
    const onData = (chunk: Buffer) => {
      output += String(chunk)
      if (/Switchyard is running at/.test(output)) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`switchyard start exited with ${code}:\n${output}`))
    })
  })
  return {
    url,
    child,
    output: () => output,
    kill9: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}

/** Removes the data directory a test's instances used. */
export function removeDataDir(env: ServiceEnv | undefined): void {
  if (env) fs.rmSync(env.dataDir, { recursive: true, force: true })
}

export function adminKey(env: ServiceEnv): string {
  return fs.readFileSync(path.join(env.dataDir, 'admin-api-key'), 'utf8').trim()
}

/**
 * A load balancer in front of several instances, as a deployment puts one: each request goes to the
 * next instance in turn, and to another one when that instance does not answer (it was killed).
 */
export async function startBalancer(
  backends: () => string[],
): Promise<{ url: string; answered: Map<string, number>; close(): Promise<void> }> {
  let next = 0
  /** Successful answers to webhook deliveries, per instance. */
  const answered = new Map<string, number>()
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const body = Buffer.concat(chunks)
      const targets = backends()
      for (let tried = 0; tried < targets.length; tried++) {
        const target = targets[next++ % targets.length]!
        try {
          const answer = await fetch(`${target}${req.url}`, {
            method: req.method,
            headers: Object.fromEntries(
              Object.entries(req.headers)
                .filter(([k]) => !['host', 'connection', 'content-length'].includes(k))
                .map(([k, v]) => [k, String(v)]),
            ),
            body: req.method === 'GET' || req.method === 'HEAD' ? undefined : new Uint8Array(body),
            redirect: 'manual',
          })
          const bytes = Buffer.from(await answer.arrayBuffer())
          const headers: Record<string, string> = {}
          answer.headers.forEach((value, name) => {
            if (!['content-length', 'transfer-encoding', 'connection', 'content-encoding'].includes(name))
              headers[name] = value
          })
          if (req.method === 'POST' && req.url?.startsWith('/hooks/') && answer.ok)
            answered.set(target, (answered.get(target) ?? 0) + 1)
          res.writeHead(answer.status, headers)
          res.end(bytes)
          return
        } catch {
          // that instance is down: the next one
        }
      }
      res.writeHead(502).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answered,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
