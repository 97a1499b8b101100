import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectZendesk } from './helpers/connect.ts'
import { scriptedModel, settled, waitForRun } from './helpers/model-agents.ts'
import { client } from './helpers/stack.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'

// docs/model-agents.md, "Approvals": an optional webhook tells an outside system that an approval
// waits, signed the Standard Webhooks way, retried when the receiver fails, and saying what waits
// and how to decide it without any secret. A real HTTP receiver verifies each signature.
interface Received {
  headers: http.IncomingHttpHeaders
  body: string
}

/** A receiver that answers the first `failures` deliveries with 500, then 204. */
async function receiver(failures = 0) {
  const received: Received[] = []
  let left = failures
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      res.statusCode = left-- > 0 ? 500 : 204
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/approvals?token=path-token-xyz`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack({
    databaseUrl: process.env.TEST_DATABASE_URL,
    backoff: { stepMs: [20, 20, 20], approvalWebhookMs: [0, 30, 30] },
  })
})
afterAll(async () => {
  await stack?.close()
})

async function until<T>(check: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 15_000
  for (;;) {
    const value = check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`waited for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

describe('an approval waiting is told to outside systems by a signed webhook', () => {
  it("the user's and the installation's webhooks each get a verified delivery that names the run, agent, tool and how to decide, retried after a failure", async () => {
    const admin = client(stack, stack.apiKey)
    const member = await stack.createUser('enterprise')
    const api = client(stack, member.apiKey)
    const mine = await receiver(1)
    const installation = await receiver()
    try {
      const own = await api.put('/v1/approval-webhook', { url: mine.url })
      expect(own.status, own.text).toBe(200)
      expect(own.body.secret).toMatch(/^whsec_/)
      const all = await admin.put('/v1/admin/approval-webhook', { url: installation.url })
      expect(all.status, all.text).toBe(200)
      // The secret is shown once.
      expect((await api.get('/v1/approval-webhook')).body).toEqual({
        scope: 'mine',
        url: mine.url,
        created_at: expect.any(String),
      })

      const integration = (await connectZendesk({ url: stack.url, apiKey: member.apiKey })).integrationId!
      const created = await api.run('zendesk.create_ticket', integration, {
        subject: 'Printer',
        description: 'jam',
      })
      const ticket = created.body.output.id
      const model = await scriptedModel(stack, member.apiKey, [
        { tool_calls: [{ name: 'delete_ticket', arguments: { ticket_id: ticket }, id: 'call_delete' }] },
        { text: 'ok' },
      ])
      const agent = await api.post('/v1/agents', {
        name: 'Ticket cleaner',
        kind: 'model',
        instructions: 'Delete it.',
        model: { connection: model.connectionId, name: 'sandbox-model' },
        tools: [{ tool: 'zendesk.delete_ticket', integration }],
      })
      expect(agent.status, agent.text).toBe(201)
      const runId = (await api.post(`/v1/agents/${agent.body.id}/runs`, { inputs: {} })).body.id
      expect((await waitForRun(api, runId, settled)).status).toBe('waiting_for_approval')

      const [first, retried] = await until(
        () => (mine.received.length >= 2 ? mine.received : undefined),
        'the retried delivery',
      )
      const [toInstallation] = await until(
        () => (installation.received.length ? installation.received : undefined),
        "the installation's delivery",
      )
      // The same message id on every try, so a receiver can drop repeats.
      expect(retried!.headers['webhook-id']).toBe(first!.headers['webhook-id'])
      const payload = new Webhook(own.body.secret).verify(
        retried!.body,
        retried!.headers as Record<string, string>,
      ) as any
      new Webhook(all.body.secret).verify(
        toInstallation!.body,
        toInstallation!.headers as Record<string, string>,
      )
      // Each is signed with its own secret: the other's does not verify.
      expect(() =>
        new Webhook(all.body.secret).verify(retried!.body, retried!.headers as Record<string, string>),
      ).toThrow()

      const approval = (await api.get('/v1/approvals')).body.approvals.find((a: any) => a.run_id === runId)
      expect(payload.type).toBe('approval.waiting')
      expect(payload.data).toMatchObject({
        approval_id: approval.id,
        run: { id: runId },
        agent: { id: agent.body.id, name: 'Ticket cleaner' },
        calls: [
          {
            tool_call_id: 'call_delete',
            tool: 'zendesk.delete_ticket',
            name: 'delete_ticket',
            summary: expect.stringContaining(`ticket_id: ${ticket}`),
          },
        ],
        how_to_decide: {
          rest: expect.stringContaining(`/v1/approvals/${approval.id}/decide`),
          cli: expect.stringContaining(`switchyard approvals approve ${approval.id}`),
        },
      })
      // Never a secret: no API key, no model key, no signing secret, no webhook address.
      for (const body of [retried!.body, toInstallation!.body])
        for (const secret of [
          member.apiKey,
          stack.apiKey,
          model.key,
          own.body.secret,
          all.body.secret,
          'path-token-xyz',
        ])
          expect(body).not.toContain(secret)

      // The webhook does not decide anything: the run still waits for a person.
      expect((await api.get(`/v1/runs/${runId}`)).body.status).toBe('waiting_for_approval')
    } finally {
      await api.delete('/v1/approval-webhook')
      await admin.delete('/v1/admin/approval-webhook')
      await mine.close()
      await installation.close()
    }
  })

  it.each([
    ['no address', {}],
    ['not an address', { url: 'tell me' }],
    ['another scheme', { url: 'ftp://example.com/hooks' }],
    ['a field it does not take', { url: 'https://example.com/hooks', secret: 'mine' }],
  ])('setting a webhook with %s is refused with 400 naming the field', async (_name, body) => {
    const answer = await client(stack, stack.apiKey).put('/v1/approval-webhook', body)
    expect(answer.status, answer.text).toBe(400)
    expect(answer.body.errors[0].field).toMatch(/^(url|secret)$/)
  })

  it("only an admin sets or reads the installation's webhook; a member's own is theirs alone", async () => {
    const member = client(stack, (await stack.createUser('free')).apiKey)
    expect((await member.put('/v1/admin/approval-webhook', { url: 'https://example.com/h' })).status).toBe(
      403,
    )
    expect((await member.get('/v1/admin/approval-webhook')).status).toBe(403)
    expect((await member.get('/v1/approval-webhook')).status).toBe(404)
    expect((await member.put('/v1/approval-webhook', { url: 'https://example.com/h' })).status).toBe(200)
    expect((await client(stack, stack.apiKey).get('/v1/approval-webhook')).status).toBe(404)
    expect((await member.delete('/v1/approval-webhook')).status).toBe(204)
    expect((await member.delete('/v1/approval-webhook')).status).toBe(404)
  })
})
