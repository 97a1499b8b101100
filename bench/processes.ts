import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'

const BIN = path.resolve(import.meta.dirname, '../bin/switchyard.js')

export interface Child {
  process: ChildProcess
  /** Resident set size in bytes, read from /proc. */
  rss(): number
  stop(): Promise<void>
}

/**
 * Starts `switchyard <args>` (or another script, TypeScript included) and resolves once a line
 * matching `ready` is printed.
 */
export async function startChild(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  script = BIN,
): Promise<Child & { match: RegExpExecArray }> {
  const profile =
    process.env.BENCH_PROFILE && (args[0] === 'start' || args[0] === 'sandbox')
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
      : []
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : []
  const child = spawn(process.execPath, [...profile, ...loader, script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += String(chunk)
      const m = ready.exec(output)
      if (m) resolve(m)
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code) =>
      reject(new Error(`switchyard ${args.join(' ')} exited with ${code}:\n${output}`)),
    )
  })
  child.stdout!.resume()
  child.stderr!.resume()
  return {
    process: child,
    match,
    rss: () =>
      Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) * 1024,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}
