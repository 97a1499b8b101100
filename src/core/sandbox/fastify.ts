import type { FastifyReply } from 'fastify'
import type { SandboxResponse } from './http.ts'

/** Writes a sandbox handler's answer out through Fastify. */
export async function sendSandboxResponse(reply: FastifyReply, response: SandboxResponse): Promise<void> {
  reply.code(response.status).headers(response.headers)
  await (response.payload === undefined ? reply.send() : reply.send(response.payload))
}
