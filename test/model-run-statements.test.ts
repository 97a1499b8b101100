import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectZendesk } from './helpers/connect.ts'
import { client } from './helpers/stack.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'

// Statements a model run makes (issue 23, section 7), counted, not timed: each one is a round trip
// on PostgreSQL and a turn of the embedded store's one connection, and they were most of a run's
// CPU (docs/benchmarks.md, "Model agents"). The run is the bench's: three model calls on the
// sandbox model and two tool calls. Counted from its start to its end, on both stores.
//
// 16 statements per run on the embedded store before this count was kept: the agent's version read
// at every start, and the run's state written at its start in a statement of its own. Then 14: the
// run's own 13 — reading the agent (1), storing the run (1), each of its five entries begun and
// ended (10), its end (1) — and its claim. Now 9: each entry's end goes with the next entry's begin,
// and the last one's with the run's end (claimed-timeline.ts), so the run's own are 8 — reading the
// agent, storing the run, five begins, its end. PostgreSQL adds, at most, the announcement of the new
// run to other instances (1), the claim that announcement wakes on this instance too (1), and the
// shared rate budget's check before each tool call (2, core/limits/budget-postgres.ts); how many
// of those fall within one run depends on timers, so they are bounded rather than counted exactly.
const OWN_STATEMENTS = 8
const AT_MOST = process.env.TEST_DATABASE_URL ? 13 : 9
/** Statements that are the run's but whose number depends on timers (see above). */
const SHARED = /claim_runs\(|select pg_notify|from rate_blocks/

/** Statements the service's schedulers make on their own, whatever the run does. */
const BACKGROUND = [
  /update subscriptions set next_poll_at/, // the poller
  /update "webhooks" set "cleanup_at"/, // webhook clean-up
  /lease_expires_at < now\(\)|'waiting_for_approval' and available_at < now\(\)|lease_holder is null and available_at/, // the worker's sweep
  /n_dead_tup/, // the embedded store's maintenance
  /approval_webhook/i, // the approval webhook outbox
  /select count\(\*\) as n from runs where user_id|from "queued_run_counts"/, // the queue cap, cached for a while per owner
]

let stack: TestStack
let api: ReturnType<typeof client>
let integration: string
let agentId: string
const seen: string[] = []
let counting = false

beforeAll(async () => {
  // Every statement of either store goes through one of these two functions.
  const pgQuery = pg.Client.prototype.query
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    if (counting) seen.push(typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text)
    return (pgQuery as (...a: unknown[]) => unknown).apply(this, args)
  } as typeof pgQuery
  const liteQuery = PGlite.prototype.query
  PGlite.prototype.query = function (this: PGlite, ...args: unknown[]) {
    if (counting) seen.push(args[0] as string)
    return (liteQuery as (...a: unknown[]) => unknown).apply(this, args)
  } as typeof liteQuery
  // A lease long enough that no renewal falls within a run.
  stack = await startTestStack({
    databaseUrl: process.env.TEST_DATABASE_URL,
    config: { runLeaseMs: 600_000 },
  })
  api = client(stack, stack.apiKey)
  integration = (await connectZendesk(stack)).integrationId!
})
afterAll(async () => {
  await stack?.close()
})

describe('statements per model run', () => {
  it(`a model run of three model calls and two tool calls makes ${OWN_STATEMENTS} statements of its own, ${AT_MOST} in all at most`, async () => {
    const { body: ticket } = await api.run('zendesk.create_ticket', integration, {
      subject: 'Printer',
      description: 'on fire',
    })
    const created = await api.post('/v1/agents', {
      name: 'counted',
      kind: 'model',
      inputs: [{ name: 'ticket_id', type: 'number', required: true }],
      instructions:
        'Read the ticket with get_ticket, then look for similar ones with search_tickets, then answer.\nticket_id: {{ inputs.ticket_id }}',
      model: { connection: 'Sandbox model', name: 'sandbox-model' },
      tools: [
        { tool: 'zendesk.get_ticket', integration },
        { tool: 'zendesk.search_tickets', integration },
      ],
    })
    expect(created.status, created.text).toBe(201)
    agentId = created.body.id
    const user = (await stack.services.users.get(stack.userId))!
    const metrics = stack.services.metrics
    const runFinished = metrics.runFinished.bind(metrics)
    const counts: number[] = []
    const totals: number[] = []
    // The first run fills the caches every run shares (prices, the owner, the agent's version).
    for (let i = 0; i < 3; i++) {
      const ended = new Promise<string>((resolve) => {
        metrics.runFinished = (status) => {
          runFinished(status)
          resolve(status)
        }
      })
      seen.length = 0
      counting = true
      await stack.services.runs.start(user, created.body.id, { ticket_id: ticket.output.id }, 'api')
      expect(await ended).toBe('succeeded')
      counting = false
      const all = seen.filter((text) => !BACKGROUND.some((b) => b.test(text)))
      const own = all.filter((text) => !SHARED.test(text))
      counts.push(own.length)
      totals.push(all.length)
      if (i > 0 && (own.length !== OWN_STATEMENTS || all.length > AT_MOST))
        console.log(all.map((text) => text.replace(/\s+/g, ' ').slice(0, 140)).join('\n'))
    }
    metrics.runFinished = runFinished
    expect(counts.slice(1)).toEqual([OWN_STATEMENTS, OWN_STATEMENTS])
    for (const total of totals.slice(1)) expect(total).toBeLessThanOrEqual(AT_MOST)
  })

  it('runs started at the same moment share their inserts, and each start answers its own run', async () => {
    const user = (await stack.services.users.get(stack.userId))!
    seen.length = 0
    counting = true
    const started = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        stack.services.runs.start(user, agentId, { ticket_id: 1000 + i }, 'api'),
      ),
    )
    counting = false
    const inserts = seen.filter((text) => /^insert into "runs"/.test(text)).length
    expect(inserts).toBeGreaterThan(0)
    expect(inserts).toBeLessThan(20)
    expect(new Set(started.map((r) => r.id)).size).toBe(20)
    for (const [i, view] of started.entries()) {
      expect(view.inputs).toEqual({ ticket_id: 1000 + i })
      const stored = await stack.services.runs.get(stack.userId, view.id)
      expect(stored.inputs).toEqual({ ticket_id: 1000 + i })
    }
  })
})
