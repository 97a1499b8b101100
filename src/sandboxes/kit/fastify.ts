import type { FastifyReply, FastifyRequest } from 'fastify'
import type { IncomingRequest, SandboxResponse } from './http.ts'

/** Reads a Fastify request into the sandbox handlers' shape; the body arrives as raw bytes. */
export function incomingRequest(request: FastifyRequest): IncomingRequest {
  const rawUrl = request.raw.url ?? '/'
  const queryAt = rawUrl.indexOf('?')
  return {
    method: request.method.toUpperCase(),
    path: queryAt < 0 ? rawUrl : rawUrl.slice(0, queryAt),
    query: new URLSearchParams(queryAt < 0 ? '' : rawUrl.slice(queryAt + 1)),
    headers: request.headers,
    rawBody: Buffer.isBuffer(request.body)
      ? request.body.toString('utf8')
      : typeof request.body === 'string'
        ? request.body
        : undefined,
    rawBytes: Buffer.isBuffer(request.body) ? request.body : undefined,
    origin: `${request.protocol}://${request.headers.host ?? 'localhost'}`,
    remoteAddress: request.ip,
  }
}

/** Writes a sandbox handler's answer out through Fastify. */
export async function sendSandboxResponse(reply: FastifyReply, response: SandboxResponse): Promise<void> {
  if (response.stream) return sendStream(reply, response, response.stream)
  reply.code(response.status).headers(response.headers)
  await (response.payload === undefined ? reply.send() : reply.send(response.payload))
}

/** A streamed answer (see `SandboxResponse.stream`): written as it comes; an error cuts the connection. */
async function sendStream(
  reply: FastifyReply,
  response: SandboxResponse,
  stream: AsyncIterable<string>,
): Promise<void> {
  reply.hijack()
  const raw = reply.raw
  let started = false
  try {
    for await (const piece of stream) {
      if (!started) {
        raw.writeHead(response.status, response.headers)
        started = true
      }
      if (raw.destroyed) return
      raw.write(piece)
    }
    if (!started) raw.writeHead(response.status, response.headers)
    raw.end()
  } catch {
    raw.socket?.destroy()
    raw.destroy()
  }
}
