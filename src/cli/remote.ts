import fs from 'node:fs'
import path from 'node:path'
import { loadConfig } from '../core/config.ts'
import { ADMIN_KEY_FILE } from './bootstrap.ts'

/** Calls the running service's REST API with the caller's API key; the key is never printed. */
export async function callService(method: string, route: string, body?: unknown): Promise<{ ok: boolean; status: number; body: unknown }> {
  const config = loadConfig()
  const base = (process.env.SWITCHYARD_URL ?? config.publicUrl).replace(/\/+$/, '')
  const key = process.env.SWITCHYARD_API_KEY ?? readKeyFile(config.dataDir)
  if (!key) throw new Error(`set SWITCHYARD_API_KEY (or start the service once so it writes ${path.join(config.dataDir, ADMIN_KEY_FILE)})`)
  let res: Response
  try {
    res = await fetch(`${base}${route}`, {
      method,
      // No content type without a body: the service refuses an empty JSON body (a DELETE, say).
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  } catch {
    throw new Error(`could not reach Switchyard at ${base}; is it running (npm start)?`)
  }
  const text = await res.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch { /* keep text */ }
  return { ok: res.ok, status: res.status, body: parsed }
}

function readKeyFile(dataDir: string): string | undefined {
  try {
    return fs.readFileSync(path.join(dataDir, ADMIN_KEY_FILE), 'utf8').trim()
  } catch {
    return undefined
  }
}
