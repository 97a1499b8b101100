import Fastify from 'fastify'
import { Agent, request } from 'undici'

/**
 * The least any service in Switchyard's stack can do for Get Ticket Info: take the call over HTTP,
 * send the step's two requests with a fixed token, parse both answers and reply. No caller
 * authentication, no integration, no budget, no validation. The bench runs it next to Switchyard so
 * the report can tell the cost of being a Node service in the middle from the cost of Switchyard's
 * own work.
 */
const base = process.env.BARE_PROXY_UPSTREAM!
const token = process.env.BARE_PROXY_TOKEN!
const dispatcher = new Agent({ keepAliveTimeout: 10_000, connections: 64 })

async function getJson(path: string): Promise<any> {
  const response = await request(`${base}${path}`, { headers: { accept: 'application/json', authorization: `Bearer ${token}` }, dispatcher })
  return JSON.parse(await response.body.text())
}

const app = Fastify()
app.post<{ Body: { ticket_id: number } }>('/run', async (req) => {
  const id = req.body.ticket_id
  const [{ ticket, users }, { comments }] = await Promise.all([
    getJson(`/tickets/${id}.json?include=users`),
    getJson(`/tickets/${id}/comments.json?page%5Bsize%5D=100&include=users`),
  ])
  return { output: { ...ticket, requester: users[0] ?? null, comments } }
})
const address = await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
console.log(`bare proxy listening on ${address}`)
