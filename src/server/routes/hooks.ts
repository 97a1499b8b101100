import type { FastifyInstance } from 'fastify'
import type { Services } from '../../services.ts'

type ByToken = { Params: { token: string } }

/** The most a platform sends in one delivery (a Trello action with its board model is a few kB). */
const HOOK_BODY_LIMIT_BYTES = 1024 * 1024

/**
 * The webhook intake (docs/triggers.md): platforms call it, so it is outside /v1 and its caller is
 * authenticated by the delivery's signature, not by an API key. Every body is kept as raw bytes:
 * signatures cover the bytes as sent, never a re-serialised copy.
 */
export async function hookRoutes(app: FastifyInstance, services: Services) {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: HOOK_BODY_LIMIT_BYTES },
      (_request, body, done) => done(null, body),
    )

    // Trello checks the address with a HEAD before it creates a webhook; the row exists by then.
    scope.head<ByToken>('/hooks/:token', async (request, reply) =>
      reply.status((await services.intake.knows(request.params.token)) ? 200 : 404).send(),
    )

    scope.post<ByToken>('/hooks/:token', async (request, reply) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
      // Node gives header names in lower case, and a repeated header as one joined value (set-cookie apart).
      const headers: Record<string, string | undefined> = {}
      for (const [name, value] of Object.entries(request.headers))
        headers[name] = Array.isArray(value) ? value.join(', ') : value
      const outcome = await services.intake.receive(request.params.token, body, headers)
      return reply.status(200).send(outcome)
    })
  })
}
