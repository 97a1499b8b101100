import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from '../helpers/test-stack.ts'
import { connectTrelloOAuth } from '../helpers/connect-trello.ts'
import { client } from '../helpers/stack.ts'
import { waitForRun } from '../helpers/runs.ts'

describe('agents and runs over REST', () => {
  let stack: TestStack
  let api: ReturnType<typeof client>
  let integrationId: string
  let listId: string

  beforeAll(async () => {
    stack = await startTestStack({ databaseUrl: process.env.TEST_DATABASE_URL })
    api = client(stack, stack.apiKey)
    integrationId = (await connectTrelloOAuth(stack)).integrationId!
    const boards = await api.run('trello.get_boards', integrationId, {})
    listId = boards.body.output.boards[0].lists[0].id
  })
  afterAll(async () => stack?.close())

  const cardAgent = (name: string) => ({
    name,
    description: 'Files a card for each request',
    inputs: [
      { name: 'subject', type: 'string', required: true },
      { name: 'urgent', type: 'boolean' },
    ],
    kind: 'steps',
    steps: [
      {
        key: 'card',
        tool: 'trello.create_card',
        integration: integrationId,
        input: { list_id: listId, name: 'Re: {{ inputs.subject }}' },
      },
      {
        key: 'note',
        tool: 'trello.add_comment_to_card',
        integration: integrationId,
        input: { card_id: '{{ steps.card.output.id }}', text: 'urgent!' },
        condition: 'inputs.urgent = true',
      },
    ],
    output: { card_id: '{{ steps.card.output.id }}', title: '{{ steps.card.output.name }}' },
  })

  it('runs the steps in order, with templates over inputs and earlier outputs, and records the timeline', async () => {
    const created = await api.post('/v1/agents', cardAgent('Filer'))
    expect(created.status, created.text).toBe(201)
    expect(created.body.version).toBe(1)
    const started = await api.post(`/v1/agents/${created.body.id}/runs`, {
      inputs: { subject: 'Printer on fire' },
    })
    expect(started.status, started.text).toBe(201)
    expect(started.body.started_by).toBe('api')
    const run = await waitForRun(api, started.body.id)
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded')
    expect(run.result.title).toBe('Re: Printer on fire')
    expect(run.timeline.map((e: any) => [e.key, e.status])).toEqual([
      ['card', 'succeeded'],
      ['note', 'skipped'],
    ])
    expect(run.timeline[0].attempts).toHaveLength(1)
    expect(run.timeline[0].summary?.text).toBeTruthy()
    const metrics = await (await fetch(`${stack.url}/metrics`)).text()
    expect(metrics).toMatch(/switchyard_runs_total\{status="succeeded"\} [1-9]/)
    expect(metrics).toMatch(/switchyard_run_queue_seconds_count [1-9]/)
  })

  it('keeps the version current when the run was accepted, and saving makes a new version', async () => {
    const created = (await api.post('/v1/agents', cardAgent('Versioned'))).body
    const saved = await api.put(`/v1/agents/${created.id}`, {
      ...cardAgent('Versioned'),
      description: 'second',
    })
    expect(saved.body.version).toBe(2)
    expect((await api.get(`/v1/agents/${created.id}?version=1`)).body.description).toBe(
      'Files a card for each request',
    )
    const run = await waitForRun(
      api,
      (await api.post(`/v1/agents/${created.id}/runs`, { inputs: { subject: 'x' } })).body.id,
    )
    expect(run.agent_version).toBe(2)
  })

  it('refuses bad definitions and inputs with 400 naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [
        { ...cardAgent('Bad1'), steps: [{ key: 'a', tool: 'nope.tool', integration: integrationId }] },
        'steps[0].tool',
      ],
      [
        { ...cardAgent('Bad2'), steps: [{ key: 'a', tool: 'trello.get_boards', integration: 'nobody' }] },
        'steps[0].integration',
      ],
      [
        {
          ...cardAgent('Bad3'),
          steps: [
            {
              key: 'a',
              tool: 'trello.get_boards',
              integration: integrationId,
              input: { x: '{{ inputs. }}' },
            },
          ],
        },
        'steps[0].input.x',
      ],
      [{ ...cardAgent('Bad4'), inputs: [{ name: '1bad', type: 'string' }] }, 'inputs[0].name'],
      [{ ...cardAgent('Bad5'), kind: 'robot' }, 'kind'],
      [{ ...cardAgent('Bad6'), steps: [] }, 'steps'],
      // Trello calls it desc: a field the step does not have would fail every run.
      [
        {
          ...cardAgent('Bad7'),
          steps: [
            {
              key: 'a',
              tool: 'trello.create_card',
              integration: integrationId,
              input: { description: '{{ inputs.subject }}' },
            },
          ],
        },
        'steps[0].input.description',
      ],
    ]
    for (const [body, field] of cases) {
      const res = await api.post('/v1/agents', body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body.errors.map((e: any) => e.field)).toContain(field)
    }
    const agent = (await api.post('/v1/agents', cardAgent('Inputs'))).body
    const missing = await api.post(`/v1/agents/${agent.id}/runs`, { inputs: {} })
    expect(missing.status).toBe(400)
    expect(missing.body.errors[0].field).toBe('inputs.subject')
    const wrongType = await api.post(`/v1/agents/${agent.id}/runs`, { inputs: { subject: 7 } })
    expect(wrongType.body.errors[0].message).toMatch(/must be a string/)
  })

  it('fails a run at the failing step with its error, and a rerun starts a new run with the same inputs', async () => {
    const agent = (
      await api.post('/v1/agents', {
        ...cardAgent('Failing'),
        steps: [
          {
            key: 'card',
            tool: 'trello.get_card',
            integration: integrationId,
            input: { card_id: 'ffffffffffffffffffffffff' },
          },
        ],
        output: {},
      })
    ).body
    const run = await waitForRun(
      api,
      (await api.post(`/v1/agents/${agent.id}/runs`, { inputs: { subject: 's' } })).body.id,
    )
    expect(run.status).toBe('failed')
    expect(run.error.step).toBe('card')
    expect(run.timeline[0].status).toBe('failed')
    const rerun = await api.post(`/v1/runs/${run.id}/rerun`)
    expect(rerun.status).toBe(201)
    expect(rerun.body.rerun_of).toBe(run.id)
    expect(rerun.body.inputs).toEqual({ subject: 's' })
  })

  it('lists runs filtered by agent and status, newest first, in pages', async () => {
    const agent = (await api.post('/v1/agents', cardAgent('Listed'))).body
    for (let i = 0; i < 3; i++)
      await waitForRun(
        api,
        (await api.post(`/v1/agents/${agent.id}/runs`, { inputs: { subject: `n${i}` } })).body.id,
      )
    const first = await api.get(`/v1/runs?agent_id=${agent.id}&limit=2`)
    expect(first.body.runs).toHaveLength(2)
    expect(first.body.runs[0].inputs.subject).toBe('n2')
    const second = await api.get(`/v1/runs?agent_id=${agent.id}&limit=2&cursor=${first.body.next_cursor}`)
    expect(second.body.runs.map((r: any) => r.inputs.subject)).toEqual(['n0'])
    expect((await api.get(`/v1/runs?agent_id=${agent.id}&status=failed`)).body.runs).toHaveLength(0)
    expect((await api.get('/v1/runs?status=done')).status).toBe(400)
  })

  it('pages through runs made within one millisecond without skipping any', async () => {
    const agent = (await api.post('/v1/agents', cardAgent('Same millisecond'))).body
    const ids: string[] = []
    for (let i = 0; i < 4; i++)
      ids.push((await api.post(`/v1/agents/${agent.id}/runs`, { inputs: { subject: `m${i}` } })).body.id)
    for (const id of ids) await waitForRun(api, id)
    // The database keeps microseconds: four runs in one millisecond, as a burst of events makes them.
    for (const [i, id] of ids.entries()) {
      await sql`update runs set created_at = timestamptz '2026-01-01 00:00:00.123000+00' + ${(i + 1) * 100} * interval '1 microsecond' where id = ${id}`.execute(
        stack.services.store.db,
      )
    }
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const res: { body: any } = await api.get(
        `/v1/runs?agent_id=${agent.id}&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
      )
      seen.push(...res.body.runs.map((r: any) => r.id))
      cursor = res.body.next_cursor
    } while (cursor && seen.length < 10)
    expect(seen).toEqual([...ids].reverse())
    expect(
      (await api.get(`/v1/runs?cursor=${Buffer.from('["soon","x"]').toString('base64url')}`)).body.errors[0]
        .field,
    ).toBe('cursor')
  })

  it("answers 404 for another user's agents and runs, on every route", async () => {
    const agent = (await api.post('/v1/agents', cardAgent('Private'))).body
    const run = (await api.post(`/v1/agents/${agent.id}/runs`, { inputs: { subject: 'p' } })).body
    const other = client(stack, (await stack.createUser()).apiKey)
    for (const [method, path] of [
      ['GET', `/v1/agents/${agent.id}`],
      ['PUT', `/v1/agents/${agent.id}`],
      ['DELETE', `/v1/agents/${agent.id}`],
      ['GET', `/v1/agents/${agent.id}/versions`],
      ['POST', `/v1/agents/${agent.id}/runs`],
      ['GET', `/v1/runs/${run.id}`],
      ['POST', `/v1/runs/${run.id}/cancel`],
      ['POST', `/v1/runs/${run.id}/rerun`],
      ['GET', `/v1/agents/${agent.id}/subscriptions`],
      ['POST', `/v1/agents/${agent.id}/subscriptions`],
    ]) {
      const res = await other.call(
        method,
        path,
        method === 'GET' || method === 'DELETE' ? undefined : { ...cardAgent('x'), inputs: { subject: 'x' } },
      )
      expect(res.status, `${method} ${path}`).toBe(404)
    }
    expect((await other.get('/v1/agents')).body.agents).toEqual([])
    expect((await other.get('/v1/runs')).body.runs).toEqual([])
  })
})
