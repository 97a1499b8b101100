import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { endedChildrenCpuSeconds } from './cpu.ts'
import type { Delivery } from './deliveries/define.ts'

/**
 * The platform's senders in the trigger bench: wrk (Debian's package `wrk`), a load generator written
 * in C, posting deliveries made and signed before the phase. Senders, service and database share this
 * machine's two cores, and every microsecond the senders spend is taken from the other two; on a real
 * deployment they run on the platform's own machines. Measured alternately in one run, autocannon's
 * Node client took about 110 µs of CPU per delivery and wrk about 13, and the intake rose by about a
 * third (docs/benchmarks.md).
 */
const SCRIPT = path.join(import.meta.dirname, 'wrk-deliveries.lua')
/**
 * Senders posting at once, each sending its next delivery when the last is answered: enough to keep
 * the intake saturated. Measured alternately in one service process (three rounds, Trello on
 * PostgreSQL), the median intake with 64 senders was 6,287 a second, with 96 6,754, with 128 6,741
 * and with 192 6,402: below about 100, the intake waits on the senders' round trips, since the
 * deliveries of a batch are answered together.
 */
const SENDERS = 128

export interface Sent {
  /** Requests answered with a 2xx. */
  acknowledged: number
  /** Answered otherwise, or lost to a socket error or a timeout. */
  refused: number
  /** Requests answered in all: more than the deliveries given means some were sent twice. */
  completed: number
  /** How long the senders sent, as wrk timed it (after it read the requests). */
  seconds: number
  /** CPU seconds the senders used, reading the requests included. */
  cpuSeconds: number
}

/** Posts `deliveries` to `address` from SENDERS connections for `durationMs`, starting over if they run out. */
export async function send(address: string, deliveries: Delivery[], durationMs: number): Promise<Sent> {
  const url = new URL(address)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-senders-'))
  const file = path.join(dir, 'requests')
  try {
    fs.writeFileSync(
      file,
      Buffer.concat(
        deliveries.flatMap((d) => {
          const body = Buffer.from(d.body)
          const head = [
            `POST ${url.pathname} HTTP/1.1`,
            `Host: ${url.host}`,
            'Content-Type: application/json',
            `Content-Length: ${body.length}`,
            ...Object.entries(d.headers).map(([name, value]) => `${name}: ${value}`),
          ].join('\r\n')
          const request = Buffer.concat([Buffer.from(`${head}\r\n\r\n`), body])
          return [Buffer.from(String(request.length).padStart(10, '0')), request]
        }),
      ),
    )
    const cpuBefore = endedChildrenCpuSeconds()
    const output = await run('wrk', [
      '-t',
      '1',
      '-c',
      String(SENDERS),
      '-d',
      `${durationMs / 1000}s`,
      '--timeout',
      '10s',
      '-s',
      SCRIPT,
      address,
      '--',
      file,
    ])
    const line = output.split('\n').find((l) => l.startsWith('{'))
    if (!line) throw new Error(`wrk printed no summary:\n${output}`)
    const s = JSON.parse(line) as {
      completed: number
      non2xx: number
      connect: number
      read: number
      write: number
      timeout: number
      us: number
    }
    return {
      acknowledged: s.completed - s.non2xx,
      refused: s.non2xx + s.connect + s.read + s.write + s.timeout,
      completed: s.completed,
      seconds: s.us / 1e6,
      cpuSeconds: endedChildrenCpuSeconds() - cpuBefore,
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    child.on('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'ENOENT'
          ? new Error('the trigger bench sends with wrk: install it first (apt-get install wrk)')
          : err,
      ),
    )
    child.on('close', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`wrk exited with ${code}:\n${output}`)),
    )
  })
}
