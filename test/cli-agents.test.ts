import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectTrelloOAuth } from './helpers/connect-trello.ts'
import { runCli } from './helpers/cli.ts'
import { client } from './helpers/stack.ts'
import { trelloControl } from './helpers/trello.ts'

// Each test starts the CLI (a fresh Node process) many times, a few seconds each on a busy machine.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 })

let stack: TestStack
let dir: string
let integrationId: string
let boardId: string
let listId: string

const cli = (...args: string[]) => runCli(stack, args)

function file(name: string, value: unknown): string {
  const where = path.join(dir, name)
  fs.writeFileSync(where, JSON.stringify(value))
  return where
}

const agent = (name: string, description = 'Files a card for each request') => ({
  name,
  description,
  inputs: [
    { name: 'subject', type: 'string', required: true },
    { name: 'list', type: 'string' },
  ],
  kind: 'steps',
  steps: [
    {
      key: 'card',
      tool: 'trello.create_card',
      integration: integrationId,
      input: {
        list_id: '{{ inputs.list ? inputs.list : "' + listId + '" }}',
        name: 'Re: {{ inputs.subject }}',
      },
    },
  ],
  output: { card_id: '{{ steps.card.output.id }}' },
})

beforeAll(async () => {
  stack = await startTestStack({ databaseUrl: process.env.TEST_DATABASE_URL })
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sy-cli-agents-'))
  integrationId = (await connectTrelloOAuth(stack)).integrationId!
  const boards = await client(stack, stack.apiKey).run('trello.get_boards', integrationId, {})
  boardId = boards.body.output.boards[0].id
  listId = boards.body.output.boards[0].lists[0].id
})
afterAll(async () => {
  await stack?.close()
  if (dir) fs.rmSync(dir, { recursive: true, force: true })
})

describe('switchyard agents and runs', () => {
  let runId: string

  it('agents create, list and get: readable lines, and --json for scripts', async () => {
    const created = await cli('agents', 'create', '--file', file('filer.json', agent('Filer')))
    expect(created.code, created.stderr).toBe(0)
    expect(created.stdout).toMatch(/^Created agent Filer \(steps\), version 1, id agt_\S+\n$/)
    const json = await cli('agents', 'create', '--json', '--file', file('other.json', agent('Other filer')))
    expect(JSON.parse(json.stdout)).toMatchObject({ name: 'Other filer', version: 1, kind: 'steps' })

    const list = await cli('agents', 'list')
    expect(list.stdout.split('\n')[0]).toMatch(/^NAME\s+KIND\s+VERSION\s+STEPS\s+UPDATED\s+ID$/)
    expect(list.stdout).toMatch(/Filer\s+steps\s+1\s+1\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\s+agt_/)
    expect(
      JSON.parse((await cli('agents', 'list', '--json')).stdout)
        .agents.map((a: any) => a.name)
        .sort(),
    ).toEqual(['Filer', 'Other filer'])
    // A page at a time, searched by the server, saying how to get the next page (issue 22, §7).
    const paged = await cli('agents', 'list', '--limit', '1')
    expect(paged.stdout).toMatch(/more: add --cursor \S+\n$/)
    const cursor = /--cursor (\S+)/.exec(paged.stdout)![1]
    const second = JSON.parse(
      (await cli('agents', 'list', '--limit', '1', '--cursor', cursor, '--json')).stdout,
    )
    expect(second.agents).toHaveLength(1)
    expect(second.next_cursor).toBeNull()
    expect(
      JSON.parse((await cli('agents', 'list', '--search', 'other', '--json')).stdout).agents.map(
        (a: any) => a.name,
      ),
    ).toEqual(['Other filer'])
    const badCursor = await cli('agents', 'list', '--cursor', 'nonsense')
    expect(badCursor.code).toBe(1)
    expect(badCursor.stderr).toContain('cursor')

    const got = await cli('agents', 'get', 'Filer')
    expect(got.stdout).toContain('Filer (steps), version 1')
    expect(got.stdout).toContain('subject: string, required')
    expect(got.stdout).toMatch(/1\. card: Create Card \(trello\.create_card\) on .+/)
    expect(got.stdout).toContain('card_id: {{ steps.card.output.id }}')
    const byId = JSON.parse((await cli('agents', 'get', JSON.parse(json.stdout).id, '--json')).stdout)
    expect(byId.name).toBe('Other filer')
  })

  it('agents update saves a new version, by name', async () => {
    const saved = await cli(
      'agents',
      'update',
      'Filer',
      '--file',
      file('filer2.json', agent('Filer', 'second')),
    )
    expect(saved.code, saved.stderr).toBe(0)
    expect(saved.stdout).toBe('Saved Filer as version 2\n')
    expect(
      JSON.parse((await cli('agents', 'get', 'Filer', '--version', '1', '--json')).stdout).description,
    ).toBe('Files a card for each request')
  })

  it('agents run --wait prints the outcome and the timeline, and exits 0 when the run succeeded', async () => {
    const run = await cli('agents', 'run', 'Filer', '--inputs', '{"subject":"Printer on fire"}', '--wait')
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(run.stdout).toMatch(/^Run run_\S+: succeeded\n/)
    expect(run.stdout).toContain('agent      Filer v2')
    expect(run.stdout).toMatch(
      /Timeline:\n\s+1\. card\s+succeeded\s+Create Card on .+\s+\d+(\.\d)? m?s\s+.*Re: Printer on fire/,
    )
    expect(run.stdout).toMatch(/Result: \{"card_id":"[0-9a-f]{24}"\}/)
    runId = /^Run (run_\S+):/.exec(run.stdout)![1]

    const json = JSON.parse(
      (await cli('agents', 'run', 'Filer', '--json', '--wait', '--inputs', '{"subject":"for a script"}'))
        .stdout,
    )
    expect(json).toMatchObject({
      status: 'succeeded',
      agent_name: 'Filer',
      timeline: [{ key: 'card', status: 'succeeded' }],
    })

    const started = await cli('agents', 'run', 'Filer', '--inputs', '{"subject":"no wait"}')
    expect(started.stdout).toMatch(/^Started run run_\S+ of Filer v2 \((queued|running|succeeded)\)\n$/)
  })

  it("agents run --wait exits 1 when the run failed, with the step's error on its timeline line", async () => {
    const run = await cli(
      'agents',
      'run',
      'Filer',
      '--wait',
      '--inputs',
      '{"subject":"nowhere","list":"0123456789abcdef01234567"}',
    )
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/^Run run_\S+: failed\n/)
    expect(run.stdout).toMatch(/1\. card\s+failed\s+Create Card on .+ error: /)
  })

  it('runs get lists each attempt of a step that needed more than one', async () => {
    await cli(
      'agents',
      'create',
      '--file',
      file('reader.json', {
        name: 'Reader',
        kind: 'steps',
        steps: [{ key: 'boards', tool: 'trello.get_boards', integration: integrationId, input: {} }],
      }),
    )
    // Enough 503s to outlast the API client's own retries: the step's first attempt fails, its second succeeds.
    await trelloControl(stack).fault({
      status: 503,
      match: { method: 'GET', path: '/1/members/me/boards' },
      times: 4,
    })
    try {
      const run = await cli('agents', 'run', 'Reader', '--wait')
      expect(run.code, run.stdout + run.stderr).toBe(0)
      expect(run.stdout).toMatch(/1\. boards\s+succeeded\s+Get Boards on /)
      expect(run.stdout).toMatch(
        /attempt 1 failed after .+ \(HTTP 503\): .+; retried in .+\n\s+attempt 2 succeeded after /,
      )
    } finally {
      await trelloControl(stack).clearFaults()
    }
  })

  it('refuses bad input with the field named and exit code 1; --json prints the problem', async () => {
    const wrongType = await cli('agents', 'run', 'Filer', '--inputs', '{"subject":5}')
    expect(wrongType.code).toBe(1)
    expect(wrongType.stderr).toContain('inputs.subject: must be a string, not a number')
    const asJson = await cli('agents', 'run', 'Filer', '--json', '--inputs', '{}')
    expect(asJson.code).toBe(1)
    expect(JSON.parse(asJson.stdout).errors).toEqual([{ field: 'inputs.subject', message: 'is required' }])

    const notJson = await cli('agents', 'run', 'Filer', '--inputs', '{subject')
    expect(notJson.code).toBe(1)
    expect(notJson.stderr).toContain('--inputs must be JSON')

    const unknown = await cli('agents', 'get', 'Nobody')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('no agent has the id or name "Nobody"; yours are')

    const badDefinition = await cli(
      'agents',
      'create',
      '--file',
      file('bad.json', {
        ...agent('Bad'),
        steps: [{ key: 'a', tool: 'nope.tool', integration: integrationId }],
      }),
    )
    expect(badDefinition.code).toBe(1)
    expect(badDefinition.stderr).toContain('steps[0].tool: there is no tool step nope.tool')

    const noFile = await cli('agents', 'create')
    expect(noFile.code).toBe(1)
    expect(noFile.stderr).toContain('--file is required')

    const badSince = await cli('runs', 'list', '--since', 'yesterday')
    expect(badSince.code).toBe(1)
    expect(badSince.stderr).toContain('since: give an ISO 8601 time')

    const unknownCommand = await cli('runs', 'frobnicate')
    expect(unknownCommand.code).toBe(1)
    expect(unknownCommand.stderr).toContain('usage: switchyard runs list|get|cancel|rerun')
  })

  it('runs list filters by agent name, status and limit; runs get shows the timeline', async () => {
    const list = await cli('runs', 'list', '--agent', 'Filer')
    expect(list.stdout.split('\n')[0]).toMatch(
      /^CREATED\s+STATUS\s+AGENT\s+STARTED BY\s+DURATION\s+ID\s+WHY IT FAILED$/,
    )
    expect(list.stdout).toContain(runId)
    expect(list.stdout).toMatch(/succeeded\s+Filer v2\s+api/)
    const none = await cli('runs', 'list', '--agent', 'Other filer')
    expect(none.stdout).toBe('no runs\n')
    const page = JSON.parse(
      (await cli('runs', 'list', '--json', '--status', 'succeeded', '--limit', '1')).stdout,
    )
    expect(page.runs).toHaveLength(1)
    expect(page.runs[0].status).toBe('succeeded')
    expect(page.next_cursor).toEqual(expect.any(String))
    expect((await cli('runs', 'list', '--limit', '1')).stdout).toMatch(/more: add --cursor \S+\n$/)

    const got = await cli('runs', 'get', runId)
    expect(got.stdout).toMatch(new RegExp(`^Run ${runId}: succeeded`))
    expect(got.stdout).toMatch(/1\. card\s+succeeded\s+Create Card on/)
    expect(JSON.parse((await cli('runs', 'get', runId, '--json')).stdout).timeline[0].key).toBe('card')
    const missing = await cli('runs', 'get', 'run_nope')
    expect(missing.code).toBe(1)
  })

  it('runs rerun starts a new run; runs cancel of a finished run is refused', async () => {
    const rerun = await cli('runs', 'rerun', runId)
    expect(rerun.code, rerun.stderr).toBe(0)
    expect(rerun.stdout).toMatch(
      new RegExp(`^Started run run_\\S+ of Filer v2 \\(\\w+\\), a rerun of ${runId}\\n$`),
    )
    const json = JSON.parse((await cli('runs', 'rerun', runId, '--json')).stdout)
    expect(json.rerun_of).toBe(runId)

    const cancel = await cli('runs', 'cancel', runId)
    expect(cancel.code).toBe(1)
    expect(cancel.stderr).toContain('the run has already succeeded')
  })
})

describe('switchyard triggers and subscriptions', () => {
  it("triggers list --json gives each trigger's id, title, platform, kind, mode, schemas and sample", async () => {
    const list = await cli('triggers', 'list', '--json')
    expect(list.code).toBe(0)
    const triggers = JSON.parse(list.stdout)
    expect(Array.isArray(triggers)).toBe(true)
    for (const t of triggers) {
      expect(Object.keys(t)).toEqual(
        expect.arrayContaining([
          'id',
          'title',
          'platform',
          'kind',
          'mode',
          'configSchema',
          'eventSchema',
          'sample',
        ]),
      )
    }
    const human = await cli('triggers', 'list')
    expect(human.stdout.split('\n').filter(Boolean)).toHaveLength(triggers.length)
    const none = await cli('triggers', 'search', 'zzqx')
    expect(none.code).toBe(0)
    expect(none.stderr).toContain('No trigger matches "zzqx"')
    expect(JSON.parse((await cli('triggers', 'search', 'zzqx', '--json')).stdout)).toEqual([])
    if (triggers.length) {
      const one = await cli('triggers', 'get', triggers[0].id)
      expect(one.stdout).toContain(`${triggers[0].title} (${triggers[0].id})`)
      expect(one.stdout).toContain('Sample event:')
      expect(JSON.parse((await cli('triggers', 'get', triggers[0].id, '--json')).stdout).id).toBe(
        triggers[0].id,
      )
    }
    const missing = await cli('triggers', 'get', 'nope.trigger')
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('nope.trigger')
  })

  it("triggers options lists a trigger configuration field's choices from the connected account", async () => {
    const json = await cli(
      'triggers',
      'options',
      'trello.new_card',
      'board_ids',
      '--integration',
      integrationId,
      '--json',
    )
    expect(json.code, json.stderr).toBe(0)
    expect(JSON.parse(json.stdout).options.map((o: { value: string }) => o.value)).toContain(boardId)
    const human = await cli(
      'triggers',
      'options',
      'trello.new_card',
      'board_ids',
      '--integration',
      integrationId,
    )
    expect(human.stdout).toContain(boardId)
    const noField = await cli('triggers', 'options', 'trello.new_card')
    expect(noField.code).toBe(1)
    expect(noField.stderr).toContain('triggers options needs a trigger id and a field')
  })

  it('--help works on every command and subcommand, and prints only that command', async () => {
    for (const args of [
      ['--help'],
      ['help', 'subscriptions'],
      ['subscriptions', '--help'],
      ['subscriptions', 'create', '--help'],
      ['triggers', 'options', '--help'],
      ['agents', 'run', '-h'],
      ['runs', '--help'],
      ['users', 'create', '--help'],
      ['tools', 'run', '--help'],
      ['doctor', '--help'],
      ['sandbox', '--help'],
    ]) {
      const help = await cli(...args)
      expect(help.code, args.join(' ') + help.stderr).toBe(0)
      expect(help.stdout, args.join(' ')).toMatch(/^Usage: switchyard/)
      const command = args[0] === 'help' ? args[1] : args[0]
      if (!command.startsWith('-')) expect(help.stdout).toContain(`  ${command} `)
    }
    expect((await cli('subscriptions', '--help')).stdout).not.toContain('  agents list')
  })

  it('subscriptions create refuses an unknown trigger, naming the field', async () => {
    await cli('agents', 'create', '--file', file('watcher.json', agent('Watcher')))
    const bad = await cli(
      'subscriptions',
      'create',
      '--agent',
      'Watcher',
      '--trigger',
      'nope.trigger',
      '--integration',
      integrationId,
    )
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('trigger: there is no trigger nope.trigger')
    const badMapping = await cli(
      'subscriptions',
      'create',
      '--agent',
      'Watcher',
      '--trigger',
      'x',
      '--integration',
      integrationId,
      '--mapping',
      'nope',
    )
    expect(badMapping.code).toBe(1)
    expect(badMapping.stderr).toContain('--mapping must be JSON')
    const missing = await cli('subscriptions', 'health', 'sub_nope')
    expect(missing.code).toBe(1)
  })

  it('subscriptions create, list, test, activate, health, deactivate and delete (when trello.new_card is declared)', async () => {
    const triggers = JSON.parse((await cli('triggers', 'list', '--json')).stdout)
    if (!triggers.some((t: any) => t.id === 'trello.new_card')) return
    const created = await cli(
      'subscriptions',
      'create',
      '--agent',
      'Watcher',
      '--trigger',
      'trello.new_card',
      '--integration',
      integrationId,
      '--config',
      JSON.stringify({ board_ids: [boardId] }),
      '--mapping',
      '{"subject":"{{ card.name }}"}',
      '--json',
    )
    expect(created.code, created.stdout + created.stderr).toBe(0)
    const sub = JSON.parse(created.stdout)
    expect(sub).toMatchObject({
      trigger_id: 'trello.new_card',
      status: 'inactive',
      mapping: { subject: '{{ card.name }}' },
    })

    const list = await cli('subscriptions', 'list', '--agent', 'Watcher')
    // The health column is the verdict (docs/triggers.md, "Health"): an inactive trigger is paused.
    expect(list.stdout).toMatch(
      new RegExp(`inactive\\s+paused\\s+New Card\\s+Watcher\\s+.+\\s+-\\s+${sub.id}`),
    )

    const test = await cli('subscriptions', 'test', sub.id)
    expect(test.code, test.stdout + test.stderr).toBe(0)
    expect(test.stdout).toMatch(/^Event: .+\nInputs: \{"subject":".+"\}\n$/)
    const testRun = JSON.parse((await cli('subscriptions', 'test', sub.id, '--start-run', '--json')).stdout)
    expect(testRun.run).toMatchObject({ test: true, started_by: 'trigger' })

    const activated = await cli('subscriptions', 'activate', sub.id)
    expect(activated.code, activated.stderr).toBe(0)
    expect(activated.stdout).toBe(`New Card (${sub.id}) is active\n`)
    const health = await cli('subscriptions', 'health', sub.id)
    expect(health.stdout).toContain('Status:      active')
    expect(health.stdout).toMatch(/Integration: .+ connected/)
    expect(health.stdout).toMatch(/Webhook .+: active, present at the platform/)
    const healthJson = JSON.parse((await cli('subscriptions', 'health', sub.id, '--json')).stdout)
    expect(healthJson.webhooks).toHaveLength(1)
    expect(healthJson.webhooks[0].address).toMatch(/\/hooks\//)
    // The events list (issue 22, §5), readable and as --json; a webhook trigger is not polled.
    const events = await cli('subscriptions', 'events', sub.id)
    expect(events.code, events.stderr).toBe(0)
    expect(JSON.parse((await cli('subscriptions', 'events', sub.id, '--json')).stdout)).toHaveProperty(
      'events',
    )
    const hookEvents = await cli('subscriptions', 'webhook-events', healthJson.webhooks[0].id, '--json')
    expect(hookEvents.code, hookEvents.stderr).toBe(0)
    expect((await cli('subscriptions', 'poll', sub.id)).code).toBe(1)

    expect((await cli('subscriptions', 'deactivate', sub.id)).stdout).toBe(
      `New Card (${sub.id}) is inactive\n`,
    )
    expect((await cli('subscriptions', 'delete', sub.id)).stdout).toBe(`Deleted subscription ${sub.id}\n`)
    expect(JSON.parse((await cli('subscriptions', 'list', '--json')).stdout)).toEqual({
      subscriptions: [],
      next_cursor: null,
      plan_resumable: [],
    })
  })

  it('agents delete removes the agent by name', async () => {
    const deleted = await cli('agents', 'delete', 'Watcher')
    expect(deleted.code, deleted.stderr).toBe(0)
    expect(deleted.stdout).toMatch(/^Deleted agent Watcher \(agt_\S+\) and its triggers\n$/)
    expect((await cli('agents', 'get', 'Watcher')).code).toBe(1)
  })
})
