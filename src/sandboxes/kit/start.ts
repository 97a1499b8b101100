import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify'
import type { AddressInfo } from 'node:net'
import { registerDrainOnClose } from '../../serving/drain-on-close.ts'
import { sendSandboxResponse } from './fastify.ts'
import type { SandboxResponse } from './http.ts'

export interface ListenOptions {
  /** 0 (the default) = an ephemeral port. */
  port?: number
  /** Default 127.0.0.1. */
  host?: string
}

export interface SandboxMount {
  prefix: string
  plugin: FastifyPluginAsync
}

/** What `GET /` (the port's root, outside every prefix) answers, if anything. */
export type RootPage = () => SandboxResponse

export interface ServedSandboxes {
  /** `http://host:port`, without a prefix. */
  origin: string
  app: FastifyInstance
  close(): Promise<void>
}

/** Serves sandbox plugins on one Fastify server, each under its own prefix. */
export async function serveSandboxes(
  mounts: SandboxMount[],
  options: ListenOptions = {},
  rootPage?: RootPage,
): Promise<ServedSandboxes> {
  const { port = 0, host = '127.0.0.1' } = options
  const app = Fastify({ logger: false })
  // A keep-alive connection whose request was in progress when close() began is closed with its
  // answer, not kept for the keep-alive timeout (72 s), so a test stack's close does not hang on it.
  registerDrainOnClose(app)
  for (const { plugin, prefix } of mounts) await app.register(plugin, { prefix })
  if (rootPage) app.get('/', (_request, reply) => sendSandboxResponse(reply, rootPage()))
  await app.listen({ port, host })
  const address = app.server.address() as AddressInfo
  const hostPart = host.includes(':') ? `[${host}]` : host
  return { origin: `http://${hostPart}:${address.port}`, app, close: () => app.close() }
}

export interface StartedSandbox {
  /** The sandbox's base URL, prefix included, e.g. `http://127.0.0.1:41234/zendesk`. */
  url: string
  close(): Promise<void>
}

/** Starts one sandbox on its own server, e.g. `startSandbox(zendeskSandbox(), '/zendesk', { port: 4010 })`. */
export async function startSandbox(
  plugin: FastifyPluginAsync,
  prefix: string,
  options: ListenOptions = {},
): Promise<StartedSandbox> {
  const served = await serveSandboxes([{ plugin, prefix }], options)
  return { url: `${served.origin}${prefix}`, close: served.close }
}
