import type { FastifyInstance } from 'fastify'
import { modelSandboxes, sandboxes } from './index.ts'
import { oidcSandbox } from './oidc/index.ts'
import { sandboxRootPage } from './root-page.ts'
import { serveSandboxes, type ListenOptions } from './kit/start.ts'

/**
 * Serves every sandbox on one port, each under its own prefix (/zendesk, …, /openai, /anthropic, /oidc),
 * and a page at `/` linking the platforms' and the identity provider's home pages.
 */
export async function startSandboxServer(
  options: ListenOptions = {},
): Promise<{ url: string; app: FastifyInstance; close(): Promise<void> }> {
  const served = await serveSandboxes(
    [
      ...[...sandboxes, ...modelSandboxes].map((s) => ({ prefix: s.prefix, plugin: s.plugin() })),
      { prefix: '/oidc', plugin: oidcSandbox() },
    ],
    options,
    () => sandboxRootPage([...sandboxes, { title: 'Identity provider', prefix: '/oidc' }], modelSandboxes),
  )
  return { url: served.origin, app: served.app, close: served.close }
}
