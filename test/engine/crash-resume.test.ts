import fs from 'node:fs'
import type { IncomingMessage } from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_LAPSES } from '../../src/core/agents/worker.ts'
import { startSandboxServer } from '../../src/sandboxes/server.ts'
import { isFinished, STORES, waitForRunState, type FreshStore } from '../helpers/engine.ts'
import { createUserIn, startInstance, type Instance, type StoreAt } from '../helpers/instances.ts'
import { client } from '../helpers/stack.ts'
import { connectTrelloWithToken, trelloControl } from '../helpers/trello.ts'

// Issue 10 and DESIGN.md §5: a step's result is stored when it completes; a run interrupted by a
// crash resumes after its last completed step and never repeats a completed write; a write caught
// in flight is failed as `interrupted`, never sent again. The service runs as a child process and
// dies by SIGKILL; the sandbox runs here, so what it received outlives the service.

describe.each(STORES)('a run survives kill -9 of its service, on $name', ({ open }) => {
  let fresh: FreshStore
  let at: StoreAt
  let sandbox: Awaited<ReturnType<typeof startSandboxServer>>
  let instance: Instance | undefined
  let apiKey: string
  let integrationId: string
  let listId: string
  /** Every API request the sandbox received, as it arrived (its own log records one only once answered). */
  const arrivals: string[] = []

  beforeAll(async () => {
    fresh = await open('crash')
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sy-crash-'))
    at = fresh.databaseUrl ? { databaseUrl: fresh.databaseUrl, dataDir } : { dataDir }
    sandbox = await startSandboxServer({ port: 0 })
    sandbox.app.server.on('request', (req: IncomingMessage) => {
      if (req.url?.startsWith('/trello/1/'))
        arrivals.push(`${req.method} ${req.url.split('?')[0].replace('/trello', '')}`)
    })
    apiKey = (await createUserIn(at)).apiKey
    instance = await startInstance(at, sandbox.url)
    integrationId = await connectTrelloWithToken({ url: instance.url, apiKey, sandboxUrl: sandbox.url })
    const boards = await client(instance, apiKey).run('trello.get_boards', integrationId, {})
    listId = boards.body.output.boards[0].lists[0].id
  }, 120_000)
  afterAll(async () => {
    await instance?.stop()
    await sandbox?.close()
    await fresh?.drop()
  })

  const control = () => trelloControl({ sandboxUrl: sandbox.url })
  const api = () => client(instance!, apiKey)
  const until = async (what: string, check: () => boolean, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs
    while (!check()) {
      if (Date.now() > deadline)
        throw new Error(
          `timed out waiting for ${what}; arrivals: ${arrivals.join(', ')}\n${instance?.output()}`,
        )
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  const cardsNamed = async (name: string) => {
    const { body } = await control().call('POST', '/act', {
      member: 'ada',
      method: 'GET',
      path: `/1/lists/${listId}/cards`,
    })
    return (body.body as Array<{ name: string }>).filter((c) => c.name === name).length
  }
  const startRun = async (name: string, steps: unknown[]) => {
    const agent = await api().post('/v1/agents', { name, kind: 'steps', steps })
    expect(agent.status, agent.text).toBe(201)
    const run = await api().post(`/v1/agents/${agent.body.id}/runs`, { inputs: {} })
    expect(run.status, run.text).toBe(201)
    return run.body.id as string
  }
  const crashAndRestart = async () => {
    await instance!.kill9()
    await control().clearFaults()
    instance = await startInstance(at, sandbox.url)
  }

  it('resumes after the last completed step: a read in flight is read again, no completed write is repeated', async () => {
    await control().fault({ latency_ms: 20_000, match: { method: 'GET', path: '/1/cards/' }, times: 1 })
    arrivals.length = 0
    const runId = await startRun('Crash during a read', [
      {
        key: 'first',
        tool: 'trello.create_card',
        integration: integrationId,
        input: { list_id: listId, name: 'crash-read first' },
      },
      {
        key: 'slow',
        tool: 'trello.get_card',
        integration: integrationId,
        input: { card_id: '{{ steps.first.output.id }}' },
      },
      {
        key: 'third',
        tool: 'trello.create_card',
        integration: integrationId,
        input: { list_id: listId, name: 'crash-read third' },
      },
    ])
    await until('the slow read to reach the sandbox', () =>
      arrivals.some((a) => a.startsWith('GET /1/cards/')),
    )
    // The first step's result is stored the moment it completed, before the run goes on.
    const midway = (await api().get(`/v1/runs/${runId}`)).body
    expect(midway.timeline.map((s: any) => [s.key, s.status])).toEqual([
      ['first', 'succeeded'],
      ['slow', 'running'],
    ])
    expect(midway.timeline[0].output.name).toBe('crash-read first')
    await crashAndRestart()

    const run = await waitForRunState(api(), runId, isFinished, 60_000)
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded')
    expect(run.timeline.map((s: any) => [s.key, s.status])).toEqual([
      ['first', 'succeeded'],
      ['slow', 'succeeded'],
      ['third', 'succeeded'],
    ])
    expect(run.timeline[0].attempts).toHaveLength(1)
    expect(run.timeline[0].output.id).toBe(midway.timeline[0].output.id) // kept, not made again
    const slow = run.timeline[1].attempts
    expect(slow.map((a: any) => a.outcome)).toEqual(['failed', 'succeeded'])
    expect(slow[0].error).toMatch(/interrupted/)
    expect(arrivals.filter((a) => a === 'POST /1/cards')).toHaveLength(2)
    expect(await cardsNamed('crash-read first')).toBe(1)
    expect(await cardsNamed('crash-read third')).toBe(1)
  }, 150_000)

  it('fails a write caught in flight by the crash as interrupted, and never sends it again', async () => {
    await control().fault({ latency_ms: 3_000, match: { method: 'POST', path: '/1/cards' }, times: 1 })
    arrivals.length = 0
    const runId = await startRun('Crash during a write', [
      {
        key: 'write',
        tool: 'trello.create_card',
        integration: integrationId,
        input: { list_id: listId, name: 'crash-write' },
      },
      { key: 'after', tool: 'trello.get_boards', integration: integrationId, input: {} },
    ])
    await until('the write to reach the sandbox', () => arrivals.includes('POST /1/cards'))
    await crashAndRestart()

    const run = await waitForRunState(api(), runId, isFinished, 60_000)
    expect(run.status).toBe('failed')
    expect(run.error).toMatchObject({ code: 'interrupted', step: 'write' })
    expect(run.timeline.map((s: any) => [s.key, s.status])).toEqual([['write', 'failed']])
    expect(run.timeline[0].error.code).toBe('interrupted')
    expect(run.timeline[0].attempts).toHaveLength(1)
    expect(arrivals.filter((a) => a === 'POST /1/cards')).toHaveLength(1)
    expect(await cardsNamed('crash-write')).toBeLessThanOrEqual(1)
  }, 150_000)

  it(`a run that keeps killing its process ends failed as crashed after ${MAX_LAPSES} executions, not claimed for ever`, async () => {
    // Every execution hangs on the same read, and each time the process dies by SIGKILL under it, as a
    // run that exhausts its process's memory would (issue 22, §2).
    await control().fault({ latency_ms: 60_000, match: { method: 'GET', path: '/1/cards/' } })
    try {
      arrivals.length = 0
      const runId = await startRun('Kills its process', [
        {
          key: 'hangs',
          tool: 'trello.get_card',
          integration: integrationId,
          input: { card_id: '5f1a0000000000000000c0de' },
        },
      ])
      const reads = () => arrivals.filter((a) => a.startsWith('GET /1/cards/')).length
      // A read that arrives after an instance started is that instance's: the one before it is dead.
      // (CI once saw a fourth execution after three kills: counted in all, a second read from one
      // instance could stand for the next one's, which was then killed before it took the run.)
      let readsBefore = 0
      // What each instance printed and when each read came, for a failure's message: CI once saw this
      // run end upstream_error after a fourth execution's read timed out, and nothing said why.
      const t0 = Date.now()
      const story: string[] = []
      for (let execution = 1; execution <= MAX_LAPSES; execution++) {
        await until(`execution ${execution} to reach the read`, () => reads() > readsBefore)
        story.push(`+${Date.now() - t0} ms: ${reads()} reads; killing instance ${execution}`)
        await instance!.kill9()
        story.push(`instance ${execution} printed:\n${instance!.output()}`)
        readsBefore = reads()
        instance = await startInstance(at, sandbox.url)
        story.push(`+${Date.now() - t0} ms: ${readsBefore} reads; instance ${execution + 1} started`)
      }
      const run = await waitForRunState(api(), runId, isFinished, 60_000)
      const seen = `run: ${JSON.stringify(run)}; arrivals: ${arrivals.join(', ')}\n${story.join('\n')}\nthe last instance printed:\n${instance!.output()}`
      expect(run.status, seen).toBe('failed')
      expect(run.error, seen).toMatchObject({ code: 'crashed', message: expect.stringMatching(/3 times/) })
      // Its entry in flight ends with it, and no fourth execution read again after the third died.
      expect(run.timeline.map((s: any) => [s.key, s.status])).toEqual([['hangs', 'failed']])
      expect(reads(), seen).toBe(readsBefore)
    } finally {
      await control().clearFaults()
    }
  }, 240_000)
})
