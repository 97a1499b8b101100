import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'

const exec = promisify(execFile)
const BIN = path.resolve(import.meta.dirname, '../../bin/switchyard.js')

export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

/**
 * Runs the `switchyard` CLI (a fresh Node process) against a service at `url` with `apiKey`, and any
 * `env` besides; a non-zero exit is returned with its code, not thrown.
 */
export async function runCli(
  target: { url: string; apiKey: string },
  args: string[],
  env: Record<string, string> = {},
): Promise<CliResult> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [BIN, ...args], {
      env: { ...process.env, SWITCHYARD_URL: target.url, SWITCHYARD_API_KEY: target.apiKey, ...env },
      timeout: 60_000,
    })
    return { code: 0, stdout, stderr }
  } catch (err: any) {
    if (typeof err.code !== 'number') throw err
    return { code: err.code as number, stdout: err.stdout as string, stderr: err.stderr as string }
  }
}
