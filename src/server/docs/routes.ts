import type { FastifyInstance, FastifyReply } from 'fastify'
import { notFound } from '../../core/errors.ts'
import { DOCS_STYLESHEET, DOCS_STYLESHEET_PATH, renderIndex, renderPage } from './render.ts'

/**
 * The docs/ folder as pages (GET /docs, /docs/<page>.md), so the web app can link each platform and
 * step to its page and a self-hosted instance carries its own manual. Public: the docs hold no
 * secrets and are the repository's own. A page is rendered once and kept: it changes only with a
 * new release.
 */
export function docsRoutes(app: FastifyInstance) {
  const rendered = new Map<string, string>()
  const once = (key: string, render: () => string | null): string | null => {
    const body = rendered.get(key) ?? render()
    if (body !== null) rendered.set(key, body)
    return body
  }
  const sendHtml = (reply: FastifyReply, body: string) =>
    reply.header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-cache').send(body)

  app.get(DOCS_STYLESHEET_PATH, async (_request, reply) =>
    reply
      .header('content-type', 'text/css; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(DOCS_STYLESHEET),
  )
  app.get('/docs', async (_request, reply) => sendHtml(reply, once('', renderIndex)!))
  app.get('/docs/*', async (request, reply) => {
    const rel = (request.params as { '*': string })['*']
    const body = once(rel, () => renderPage(rel))
    if (body === null) throw notFound(`GET /docs/${rel}`)
    return sendHtml(reply, body)
  })
}
