import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import { notFound } from '../core/errors.ts'

export const WEB_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web-dist')
const API_PATHS = /^\/(v1|oauth|openapi\.json|health)(\/|$|\?)/

/** Serves the built web app, with index.html for client-side routes. API paths keep their 404s. */
export async function registerWebApp(app: FastifyInstance) {
  const hasBuild = fs.existsSync(path.join(WEB_DIST, 'index.html'))
  if (hasBuild) await app.register(fastifyStatic, { root: WEB_DIST, wildcard: false, index: false })
  app.setNotFoundHandler((request, reply) => {
    if (hasBuild && request.method === 'GET' && !API_PATHS.test(request.url)) {
      return reply.header('cache-control', 'no-cache').sendFile('index.html')
    }
    throw notFound(`${request.method} ${request.url.split('?')[0]}`)
  })
}
