import Fastify from 'fastify'
import { Agent } from 'undici'

/**
 * The least any service in Switchyard's stack can do for Get Ticket Info: take the call over HTTP,
 * send the step's two requests with a fixed token through undici's dispatcher (as Switchyard does),
 * parse both answers and reply. No caller authentication, no integration, no budget, no validation.
 * The bench runs it next to Switchyard so the report can tell the cost of being a Node service in
 * the middle from the cost of Switchyard's own work.
 */
const base = new URL(process.env.BARE_PROXY_UPSTREAM!)
const token = process.env.BARE_PROXY_TOKEN!
const dispatcher = new Agent({ keepAliveTimeout: 10_000, connections: 64 })

function getJson(path: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    dispatcher.dispatch(
      {
        origin: base.origin,
        path: base.pathname + path,
        method: 'GET',
        headers: { accept: 'application/json', authorization: `Bearer ${token}` },
      },
      {
        onRequestStart() {},
        onResponseData(_controller, chunk) {
          chunks.push(chunk)
        },
        onResponseEnd() {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')))
        },
        onResponseError(_controller, err) {
          reject(err)
        },
      },
    )
  })
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
