import fs from 'node:fs'
import path from 'node:path'
import { loadConfig, type Config } from '../core/config.ts'
import { ADMIN_KEY_FILE, SERVICE_URL_FILE } from './bootstrap.ts'

/** Calls the running service's REST API with the caller's API key; the key is never printed. */
export async function callService(
  method: string,
  route: string,
  body?: unknown,
): Promise<{ ok: boolean; status: number; body: unknown }> {
  const { base, key } = serviceTarget()
  const timeoutMs = cliTimeoutMs()
  const signal = AbortSignal.timeout(timeoutMs)
  const timedOut = () =>
    new Error(
      `Switchyard at ${base} did not answer within ${timeoutMs / 1000} s; ` +
        'set SWITCHYARD_CLI_TIMEOUT_MS to wait longer',
    )
  let res: Response
  let text: string
  try {
    res = await fetch(`${base}${route}`, {
      method,
      // No content type without a body: the service refuses an empty JSON body (a DELETE, say).
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    })
  } catch (err) {
    if (signal.aborted) throw timedOut()
    // fetch says only "fetch failed"; its cause says what happened (refused, reset, closed mid-answer).
    const cause = (err as { cause?: { code?: string; message?: string } }).cause
    const why = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err))
    throw new Error(`could not reach Switchyard at ${base} (${why}); is it running (npm start)?`)
  }
  try {
    text = await res.text()
  } catch (err) {
    if (signal.aborted) throw timedOut()
    throw err
  }
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {
    /* keep text */
  }
  return { ok: res.ok, status: res.status, body: parsed }
}

/** Where the running service is and the key to call it with: SWITCHYARD_URL, SWITCHYARD_API_KEY or the admin key file. */
export function serviceTarget(): { base: string; key: string } {
  const config = loadConfig()
  const base = serviceUrl(config)
  const key = process.env.SWITCHYARD_API_KEY ?? readKeyFile(config.dataDir)
  if (!key)
    throw new Error(
      `set SWITCHYARD_API_KEY (or start the service once so it writes ${path.join(config.dataDir, ADMIN_KEY_FILE)})`,
    )
  return { base, key }
}

/**
 * How long one request to the service may take, answer included. A tool run waits out rate limits
 * for up to a minute, so the default leaves room for that (docs/configuration.md).
 */
export const DEFAULT_CLI_TIMEOUT_MS = 120_000

function cliTimeoutMs(): number {
  const n = Number(process.env.SWITCHYARD_CLI_TIMEOUT_MS)
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_CLI_TIMEOUT_MS
}

function readKeyFile(dataDir: string): string | undefined {
  return readFileOrUndefined(path.join(dataDir, ADMIN_KEY_FILE))
}

/**
 * Which service the CLI talks to: SWITCHYARD_URL, else the URL the last `start` on this data
 * directory wrote, else the one this environment's settings (PORT, SWITCHYARD_PUBLIC_URL) give.
 */
export function serviceUrl(config: Config, env: NodeJS.ProcessEnv = process.env): string {
  const written = readFileOrUndefined(path.join(config.dataDir, SERVICE_URL_FILE))
  return (env.SWITCHYARD_URL?.trim() || written || config.publicUrl).replace(/\/+$/, '')
}

function readFileOrUndefined(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').trim() || undefined
  } catch {
    return undefined
  }
}
