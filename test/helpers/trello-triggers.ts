import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestStack } from './test-stack.ts'
import type { ToolContext } from '../../src/core/tools/define.ts'
import type { Delivery } from '../../src/core/triggers/define.ts'
import { trello } from '../../src/platforms/trello/platform.ts'
import { trelloControl } from './trello.ts'

/** A local webhook receiver: answers HEAD (Trello's check) and POST with 200, and keeps each POST's raw bytes. */
export interface HookReceiver {
  base: string
  posts: Array<{ path: string; headers: IncomingHttpHeaders; rawBody: Buffer }>
  close(): Promise<void>
}

export async function startHookReceiver(): Promise<HookReceiver> {
  const posts: HookReceiver['posts'] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      if (req.method === 'POST')
        posts.push({ path: req.url ?? '', headers: req.headers, rawBody: Buffer.concat(chunks) })
      res.statusCode = 200
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** The step context the engine would use for this integration (the stack's first user). */
export async function triggerContext(stack: TestStack, integration: string): Promise<ToolContext> {
  const user = await stack.services.users.get(stack.userId)
  return (await stack.services.contexts.open(user!, trello, integration, 'trigger-test')).ctx
}

/** Acts on the sandbox as a member, as Trello's web UI would (`POST /_control/act`); answers the API's body. */
export async function act(
  stack: TestStack,
  member: string,
  method: string,
  path: string,
  params: Record<string, unknown> = {},
): Promise<any> {
  const answer = await trelloControl(stack).call('POST', '/act', { member, method, path, params })
  if (answer.status !== 200 || answer.body.status !== 200)
    throw new Error(`act ${method} ${path}: ${JSON.stringify(answer.body)}`)
  return answer.body.body
}

/** Waits until the sandbox has no delivery pending, then answers the POSTs to `path` received since `mark`, oldest action first. */
export async function deliveriesSince(
  stack: TestStack,
  receiver: HookReceiver,
  mark: number,
  path: string,
  callbackUrl: string,
): Promise<Delivery[]> {
  const settled = await trelloControl(stack).call('GET', '/deliveries?settled=1&timeout_ms=10000')
  if (!settled.body.settled) throw new Error('deliveries did not settle')
  return receiver.posts
    .slice(mark)
    .filter((p) => p.path === path)
    .map((p) => ({ rawBody: p.rawBody, headers: lowerCased(p.headers), callbackUrl }))
    .sort((a, b) => actionId(a).localeCompare(actionId(b)))
}

const actionId = (d: Delivery): string => JSON.parse(d.rawBody.toString('utf8')).action.id

function lowerCased(headers: IncomingHttpHeaders): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {}
  for (const [name, value] of Object.entries(headers))
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value
  return out
}
