import fs from 'node:fs'
import path from 'node:path'
import { loadConfig } from '../core/config.ts'
import { ADMIN_KEY_FILE } from './bootstrap.ts'

/** Calls the running service's REST API with the caller's API key; the key is never printed. */
export async function callService(method: string, route: string, body?: unknown): Promise<{ ok: boolean; status: number; body: unknown }> {
  const { base, key } = serviceTarget()
  let res: Response
  try {
    res = await fetch(`${base}${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
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

/** Where the running service is and the key to call it with: SWITCHYARD_URL, SWITCHYARD_API_KEY or the admin key file. */
export function serviceTarget(): { base: string; key: string } {
  const config = loadConfig()
  const base = (process.env.SWITCHYARD_URL ?? config.publicUrl).replace(/\/+$/, '')
  const key = process.env.SWITCHYARD_API_KEY ?? readKeyFile(config.dataDir)
  if (!key) throw new Error(`set SWITCHYARD_API_KEY (or start the service once so it writes ${path.join(config.dataDir, ADMIN_KEY_FILE)})`)
  return { base, key }
}

function readKeyFile(dataDir: string): string | undefined {
  try {
    return fs.readFileSync(path.join(dataDir, ADMIN_KEY_FILE), 'utf8').trim()
  } catch {
    return undefined
  }
}
