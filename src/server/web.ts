import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import { notFound } from '../core/errors.ts'

export const WEB_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web-dist')
/**
 * Paths that belong to machines, not to the web app's pages: an unknown one answers a JSON 404, never
 * index.html, which a client expecting JSON (or a scraper, an MCP client, a script loading an asset)
 * would take for a success. Whole segments for v1, oauth, metrics, docs, .well-known and assets;
 * any segment starting with openapi, mcp or health (/openapi.yaml, /mcp-sse, /healthz).
 */
export const API_PATHS =
  /^\/(?:(?:v1|oauth|metrics|docs|\.well-known|assets)|(?:openapi|mcp|health)[^/?#]*)(?:\/|$|\?|#)/

/** Serves the built web app, with index.html for its page routes. API paths keep their 404s. */
export async function registerWebApp(app: FastifyInstance, root: string = WEB_DIST) {
  const hasBuild = fs.existsSync(path.join(root, 'index.html'))
  if (hasBuild) await app.register(fastifyStatic, { root, wildcard: false, index: false })
  app.setNotFoundHandler((request, reply) => {
    if (hasBuild && request.method === 'GET' && !API_PATHS.test(request.url)) {
      return reply.header('cache-control', 'no-cache').sendFile('index.html')
    }
    throw notFound(`${request.method} ${request.url.split('?')[0]}`)
  })
}
