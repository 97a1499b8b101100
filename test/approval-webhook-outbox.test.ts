import { mkdtempSync, rmSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { afterEach, describe, expect, it } from 'vitest'
import { Users } from '../src/core/access/users.ts'
import { createSealer } from '../src/core/connections/crypto.ts'
import { newId } from '../src/core/ids.ts'
import { ApprovalWebhookOutbox } from '../src/core/models/approval-webhook-outbox.ts'
import { openStore, type Store } from '../src/core/store/database.ts'
import { scratchDatabase } from './helpers/scratch-database.ts'

// docs/model-agents.md, "Telling an outside system": the approval webhook's tries are stored rows,
// so a retry waiting for its time survives a restart, and two instances on one database send each
// try once. Real HTTP to a receiver that checks the Standard Webhooks signature.

const sealer = createSealer(Buffer.alloc(32, 7))
const SECRET = `whsec_${Buffer.alloc(24, 9).toString('base64')}`
/** Retries far in the future: a test makes one due by moving its time, never by waiting. */
const SCHEDULE = [0, 3_600_000]

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** A receiver answering 500 to the first `failures` deliveries, then 204. */
async function receiver(failures = 0) {
  const received: Array<{ id: string; body: string; headers: http.IncomingHttpHeaders }> = []
  let left = failures
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      received.push({ id: String(req.headers['webhook-id']), body, headers: req.headers })
      res.statusCode = left-- > 0 ? 500 : 204
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received }
}

/** A user whose run waits on an approval, and their approval webhook pointing at `url`. */
async function seed(store: Store, url: string): Promise<{ owner: string; approvalId: string }> {
  const owner = (await new Users(store.db).create({ email: `${newId('u')}@example.test` })).id
  const agentId = newId('agt')
  await store.db
    .insertInto('agents')
    .values({ id: agentId, user_id: owner, name: 'Ticket cleaner', current_version: 1 })
    .execute()
  const runId = newId('run')
  await store.db
    .insertInto('runs')
    .values({
      id: runId,
      user_id: owner,
      agent_id: agentId,
      agent_version: 1,
      started_by: 'api',
      inputs: '{}',
      status: 'waiting_for_approval',
    })
    .execute()
  const approvalId = newId('apr')
  await store.db
    .insertInto('approvals')
    .values({
      id: approvalId,
      run_id: runId,
      user_id: owner,
      model_seq: 0,
      status: 'pending',
      calls: '[]',
      expires_at: new Date(Date.now() + 86_400_000),
    })
    .execute()
  await store.db
    .insertInto('approval_webhooks')
    .values({ owner, url, secret: sealer.seal(SECRET), created_by: owner })
    .execute()
  return { owner, approvalId }
}

function outboxOn(store: Store): ApprovalWebhookOutbox {
  const outbox = new ApprovalWebhookOutbox(store.db, sealer, 'any', SCHEDULE)
  outbox.start()
  cleanups.push(() => outbox.stop())
  return outbox
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

const deliveries = (store: Store) =>
  store.db.selectFrom('approval_webhook_deliveries').selectAll().orderBy('created_at').execute()

describe('approval webhook deliveries are stored, not kept in one process', () => {
  it('a retry waiting for its time survives a restart and goes out under the same webhook-id', async () => {
    const base = process.env.TEST_DATABASE_URL
    const scratch = base ? await scratchDatabase(base) : undefined
    const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-outbox-'))
    cleanups.push(async () => {
      await scratch?.drop()
      rmSync(dataDir, { recursive: true, force: true })
    })
    const open = () => openStore(scratch ? { databaseUrl: scratch.url } : { dataDir })
    const hook = await receiver(1)

    // The first instance's try fails; its retry is due in an hour, and the instance stops.
    const first = await open()
    const { owner, approvalId } = await seed(first, hook.url)
    const outbox = outboxOn(first)
    await outbox.enqueue(approvalId, [owner], '{"n":1}')
    await until(async () => (await deliveries(first))[0]?.attempts === 1, 'the first, failed try')
    expect(hook.received).toHaveLength(1)
    await outbox.stop()
    await first.close()

    // An hour later, after a restart: the stored try goes out, once, with the same id and a good signature.
    const second = await open()
    cleanups.push(() => second.close())
    await second.db
      .updateTable('approval_webhook_deliveries')
      .set({ next_at: new Date(Date.now() - 1000) })
      .execute()
    outboxOn(second)
    await until(async () => (await deliveries(second))[0]?.status === 'delivered', 'the retry')
    expect(hook.received).toHaveLength(2)
    expect(hook.received[1]!.id).toBe(hook.received[0]!.id)
    expect(new Webhook(SECRET).verify(hook.received[1]!.body, hook.received[1]!.headers as any)).toEqual({
      n: 1,
    })
    expect(await deliveries(second)).toMatchObject([{ attempts: 2, last_status: 204 }])
  }, 60_000)

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'two instances on one PostgreSQL database send each try once, and leave alone one another holds',
    async () => {
      const scratch = await scratchDatabase(process.env.TEST_DATABASE_URL!)
      cleanups.push(() => scratch.drop())
      const a = await openStore({ databaseUrl: scratch.url })
      const b = await openStore({ databaseUrl: scratch.url })
      cleanups.push(() => a.close())
      cleanups.push(() => b.close())
      const hook = await receiver()
      const { owner, approvalId } = await seed(a, hook.url)
      // A try claimed by an instance that is still within its lease is not another's to send.
      const held = newId('msg')
      await a.db
        .insertInto('approval_webhook_deliveries')
        .values({
          id: held,
          approval_id: approvalId,
          owner,
          body: '{}',
          status: 'pending',
          next_at: new Date(Date.now() - 1000),
          lease_holder: 'another-instance',
          lease_until: new Date(Date.now() + 3_600_000),
        })
        .execute()
      const outboxA = outboxOn(a)
      outboxOn(b)
      for (let i = 0; i < 8; i++)
        await outboxA.enqueue(approvalId, [owner, owner, owner], JSON.stringify({ i }))
      await until(
        async () => (await deliveries(a)).filter((d) => d.status === 'delivered').length === 24,
        'every delivery',
      )
      const ids = hook.received.map((r) => r.id)
      expect(ids).toHaveLength(24)
      expect(new Set(ids).size).toBe(24)
      expect(ids).not.toContain(held)
      // Its holder's lease runs out: then it is sent.
      await a.db
        .updateTable('approval_webhook_deliveries')
        .set({ lease_until: new Date(Date.now() - 1000) })
        .where('id', '=', held)
        .execute()
      outboxA.kick()
      await until(() => hook.received.some((r) => r.id === held), 'the try whose lease ran out')
      expect(hook.received.filter((r) => r.id === held)).toHaveLength(1)
    },
    60_000,
  )
})
