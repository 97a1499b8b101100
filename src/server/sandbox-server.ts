import Fastify, { type FastifyInstance } from 'fastify'
import type { PlatformDefinition } from '../core/platforms/types.ts'

/** Serves every platform's sandbox on one port, each under its own prefix (/zendesk, …). */
export async function startSandboxServer(platforms: PlatformDefinition[], options: { port?: number; host?: string } = {}): Promise<{ url: string; app: FastifyInstance; close(): Promise<void> }> {
  const app = Fastify({ logger: false })
  for (const platform of platforms) await app.register(platform.sandbox.plugin(), { prefix: platform.sandbox.prefix })
  const host = options.host ?? '127.0.0.1'
  await app.listen({ port: options.port ?? 0, host })
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  return { url: `http://${host}:${port}`, app, close: () => app.close() }
}
