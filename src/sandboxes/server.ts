import Fastify, { type FastifyInstance } from 'fastify'
import { sandboxes } from './index.ts'

/** Serves every sandbox on one port, each under its own prefix (/zendesk, …). */
export async function startSandboxServer(options: { port?: number; host?: string } = {}): Promise<{ url: string; app: FastifyInstance; close(): Promise<void> }> {
  const app = Fastify({ logger: false })
  for (const sandbox of sandboxes) await app.register(sandbox.plugin(), { prefix: sandbox.prefix })
  const host = options.host ?? '127.0.0.1'
  await app.listen({ port: options.port ?? 0, host })
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  return { url: `http://${host}:${port}`, app, close: () => app.close() }
}
