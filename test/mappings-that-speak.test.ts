import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventPathProblems } from '../src/core/triggers/event-paths.ts'
import { exampleTemplate } from '../src/core/triggers/event-fields.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { client } from './helpers/stack.ts'
import { createAgent, waitFor } from './helpers/trello-engine.ts'
import { connectVercel, VERCEL } from './helpers/vercel.ts'

// A mapping that cannot work is refused when it is saved or activated, naming the field and what to
// write instead (issue 22, §5): before, it activated and every event failed with mapping_failed while
// health stayed green. And a failed run says why in the runs list itself. Over real HTTP, on PGlite
// (or TEST_DATABASE_URL).
let stack: TestStack
let api: ReturnType<typeof client>
let integration: string
let agent: string

const RUN = Math.random().toString(36).slice(2, 10)
const BIN = path.resolve(import.meta.dirname, '../bin/switchyard.js')
const cli = async (...args: string[]) => {
  const { stdout } = await promisify(execFile)(process.execPath, [BIN, ...args], {
    env: { ...process.env, SWITCHYARD_URL: stack.url, SWITCHYARD_API_KEY: stack.apiKey },
  })
  return stdout
}
const subscription = (mapping: Record<string, string>) => ({
  trigger: 'vercel.deployment_started',
  integration,
  config: { project_ids: [VERCEL.personalProject.id] },
  mapping,
})

beforeAll(async () => {
  stack = await startTestStack({ databaseUrl: process.env.TEST_DATABASE_URL })
  api = client(stack, stack.apiKey)
  integration = (await connectVercel(stack)).integrationId!
  agent = await createAgent(api, {
    name: `Mapped ${RUN}`,
    inputs: [
      { name: 'url', type: 'string', required: true },
      { name: 'title', type: 'string' },
    ],
    kind: 'steps',
    steps: [{ key: 'list', tool: 'vercel.list_deployments', integration, input: { limit: 1 } }],
    output: {},
  })
})
afterAll(async () => stack?.close())

describe('a mapping path the event does not have', () => {
  // Each is refused (400) naming the agent input whose template reads it, with the nearest field.
  const refused: Array<[string, Record<string, string>, string, RegExp]> = [
    [
      'a synonym',
      { url: '{{ deployment.link }}' },
      'mapping.url',
      /no deployment\.link: did you mean deployment\.url\?/,
    ],
    [
      'a typo',
      { url: '{{ deployment.url }}', title: '{{ deployment.nmae }}' },
      'mapping.title',
      /did you mean deployment\.name\?/,
    ],
    [
      'another platform’s field',
      { url: '{{ card.name }}' },
      'mapping.url',
      /the event has no card; the event has event, deployment/,
    ],
    [
      'inside a function',
      { url: '{{ $lowercase(deploymnt.url) }}' },
      'mapping.url',
      /no deploymnt: did you mean deployment\?/,
    ],
    [
      'in text',
      { url: 'see {{ deployment.url }} ({{ project.nam }})' },
      'mapping.url',
      /no project\.nam: did you mean project\.name\?/,
    ],
    ['from $ root', { url: '{{ $.deployment.uri }}' }, 'mapping.url', /did you mean deployment\.url\?/],
  ]
  it.each(refused)(
    '%s is refused on create and on update, naming the field',
    async (_, mapping, field, message) => {
      const created = await api.post(`/v1/agents/${agent}/subscriptions`, subscription(mapping))
      expect(created.status, created.text).toBe(400)
      expect(created.body.errors).toEqual([{ field, message: expect.stringMatching(message) }])
      const fine = await api.post(
        `/v1/agents/${agent}/subscriptions`,
        subscription({ url: '{{ deployment.url }}' }),
      )
      expect(fine.status, fine.text).toBe(201)
      const updated = await api.call('PATCH', `/v1/subscriptions/${fine.body.id}`, { mapping })
      expect(updated.status, updated.text).toBe(400)
      expect(updated.body.errors).toEqual([{ field, message: expect.stringMatching(message) }])
    },
  )

  it('paths the event has are accepted, however they are written', async () => {
    for (const mapping of [
      { url: '{{ deployment.url }}', title: '{{ $uppercase(deployment.name) & " on " & project.name }}' },
      { url: '{{ $.deployment.url }}', title: '{{ deployment[name = "x"].url ? "x" : deployment.name }}' },
      { url: 'https://{{ deployment.url }}/', title: '{{ $map([1, 2], function($v) { $v * 2 }) }}' },
    ]) {
      const created = await api.post(`/v1/agents/${agent}/subscriptions`, subscription(mapping))
      expect(created.status, `${JSON.stringify(mapping)}: ${created.text}`).toBe(201)
    }
  })

  it('the suggestions fit each platform’s event: card.title → card.name, ticket.title → ticket.subject', async () => {
    const schema = async (id: string) => (await api.get(`/v1/triggers/${id}`)).body.eventSchema
    const trello = await schema('trello.new_card')
    const zendesk = await schema('zendesk.new_ticket')
    expect(eventPathProblems({ subject: '{{ card.title }}' }, trello)).toEqual([
      {
        field: 'mapping.subject',
        message: expect.stringMatching(/no card\.title: did you mean card\.name\?/),
      },
    ])
    expect(eventPathProblems({ subject: '{{ ticket.title }}' }, zendesk)).toEqual([
      { field: 'mapping.subject', message: expect.stringMatching(/did you mean ticket\.subject\?/) },
    ])
    expect(eventPathProblems({ to: '{{ ticket.requester.mail }}' }, zendesk)).toEqual([
      { field: 'mapping.to', message: expect.stringMatching(/did you mean ticket\.requester\.email\?/) },
    ])
    // The web's placeholder and the messages' examples come from the trigger's own event.
    expect(exampleTemplate(zendesk)).toBe('{{ ticket.subject }}')
    expect(exampleTemplate(trello)).toBe('{{ card.name }}')
    expect(exampleTemplate(zendesk, 'email')).toBe('{{ ticket.requester.email }}')
  })
})

describe('a required input without a mapping', () => {
  it('activation is refused naming the input, over REST and the CLI; mapped, it activates', async () => {
    const created = await api.post(
      `/v1/agents/${agent}/subscriptions`,
      subscription({ title: '{{ deployment.name }}' }),
    )
    expect(created.status, created.text).toBe(201)
    const id = created.body.id
    const refused = await api.post(`/v1/subscriptions/${id}/activate`)
    expect(refused.status, refused.text).toBe(400)
    expect(refused.body.errors).toEqual([
      {
        field: 'mapping.url',
        message: expect.stringMatching(/input url is required and has no mapping.*\{\{ deployment\.url \}\}/),
      },
    ])
    expect((await api.get(`/v1/subscriptions/${id}`)).body.status).toBe('inactive')
    const shown = await promisify(execFile)(process.execPath, [BIN, 'subscriptions', 'activate', id], {
      env: { ...process.env, SWITCHYARD_URL: stack.url, SWITCHYARD_API_KEY: stack.apiKey },
    }).catch((err: { code: number; stderr: string; stdout: string }) => err)
    expect('code' in shown && shown.code).not.toBe(0)
    expect(`${shown.stdout}${shown.stderr}`).toMatch(/mapping\.url.*required and has no mapping/)

    const blank = await api.call('PATCH', `/v1/subscriptions/${id}`, { mapping: { url: '  ' } })
    expect(blank.status, blank.text).toBe(200)
    expect((await api.post(`/v1/subscriptions/${id}/activate`)).status).toBe(400)
    const mapped = await api.call('PATCH', `/v1/subscriptions/${id}`, {
      mapping: { url: '{{ deployment.url }}' },
    })
    expect(mapped.status, mapped.text).toBe(200)
    const active = await api.post(`/v1/subscriptions/${id}/activate`)
    expect(active.status, active.text).toBe(200)
    expect(active.body.status).toBe('active')
    // An active subscription cannot lose the mapping activation asked for.
    const dropped = await api.call('PATCH', `/v1/subscriptions/${id}`, {
      mapping: { title: '{{ deployment.name }}' },
    })
    expect(dropped.status, dropped.text).toBe(400)
    expect(dropped.body.errors).toEqual([
      { field: 'mapping.url', message: expect.stringMatching(/required/) },
    ])
  })
})

describe('the runs list says why a run failed', () => {
  it('REST gives the error; the CLI prints it on the run’s row', async () => {
    const failing = await createAgent(api, {
      name: `Fails ${RUN}`,
      kind: 'steps',
      steps: [
        {
          key: 'get',
          tool: 'vercel.get_deployment',
          integration,
          input: { id: 'dpl_NoSuchDeployment000000' },
        },
      ],
      output: {},
    })
    const started = await api.post(`/v1/agents/${failing}/runs`, { inputs: {} })
    expect(started.status, started.text).toBe(201)
    const run = await waitFor('the run to fail', async () => {
      const r = (await api.get(`/v1/runs/${started.body.id}`)).body
      return r.status === 'failed' && r
    })
    const listed = (await api.get(`/v1/runs?agent_id=${failing}`)).body.runs
    expect(listed[0]).toMatchObject({ id: run.id, status: 'failed', error: { code: run.error.code } })
    expect(listed[0].error.message).toBeTruthy()
    const out = await cli('runs', 'list', '--agent', failing)
    const row = out.split('\n').find((l) => l.includes(run.id))
    expect(row).toContain(`${run.error.code}: ${run.error.message.split(/\s+/)[0]}`)
  })
})
