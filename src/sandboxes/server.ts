import type { FastifyInstance } from 'fastify'
import { sandboxes } from './index.ts'
import { serveSandboxes, type ListenOptions } from './kit/start.ts'

/** Serves every sandbox on one port, each under its own prefix (/zendesk, …). */
export async function startSandboxServer(
  options: ListenOptions = {},
): Promise<{ url: string; app: FastifyInstance; close(): Promise<void> }> {
  const served = await serveSandboxes(
    sandboxes.map((s) => ({ prefix: s.prefix, plugin: s.plugin() })),
    options,
  )
  return { url: served.origin, app: served.app, close: served.close }
}
