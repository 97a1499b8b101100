import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { connectZendesk } from './helpers/connect.ts'
import { scriptedModel, settled, waitForRun } from './helpers/model-agents.ts'
import { runCli } from './helpers/cli.ts'
import { client } from './helpers/stack.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'

// `switchyard models` and `switchyard approvals` against a running stack (issue 23), readable lines
// and --json, exit 1 on a refusal; the key is read from the environment, never printed.
// Each test starts the CLI (a fresh Node process) several times, a few seconds each on a busy machine.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 })
let stack: TestStack
let integration: string

beforeAll(async () => {
  stack = await startTestStack()
  integration = (await connectZendesk(stack)).integrationId!
})
afterAll(async () => {
  await stack?.close()
})

const cli = (env: Record<string, string>, ...args: string[]) => runCli(stack, args, env)

describe('switchyard models', () => {
  it('connects with a key from the environment, lists without it, and removes', async () => {
    const key = 'sk-cli-secret-0123456789'
    const connected = await cli(
      { MY_KEY: key },
      'models',
      'connect',
      'cli-openai',
      '--protocol',
      'openai-chat',
      '--base-url',
      `${stack.sandboxUrl}/openai/v1`,
      '--api-key-env',
      'MY_KEY',
      '--json',
    )
    expect(connected.code, connected.stderr).toBe(0)
    const made = JSON.parse(connected.stdout)
    expect(made).toMatchObject({ name: 'cli-openai', has_key: true })
    const listed = await cli({}, 'models', 'list')
    expect(listed.stdout).toContain('Sandbox model (sandbox model: scripted, no understanding)')
    expect(listed.stdout).toContain('cli-openai')
    expect(listed.stdout + connected.stdout).not.toContain(key)
    const refused = await cli(
      {},
      'models',
      'connect',
      'bad',
      '--protocol',
      'nope',
      '--base-url',
      'https://x.test',
    )
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('protocol')
    // Before removing it: which model agents use it.
    const api = client(stack, stack.apiKey)
    const agent = await api.post('/v1/agents', {
      name: 'CLI reader',
      kind: 'model',
      instructions: 'Answer.',
      model: { connection: made.id, name: 'gpt-4.1' },
    })
    expect(agent.status, agent.text).toBe(201)
    const usage = await cli({}, 'models', 'usage', made.id)
    expect(usage.stdout).toContain('The model agent “CLI reader” uses it')
    expect(JSON.parse((await cli({}, 'models', 'usage', made.id, '--json')).stdout)).toMatchObject({
      agents: [{ id: agent.body.id, name: 'CLI reader' }],
    })
    await api.delete(`/v1/agents/${agent.body.id}`)
    expect((await cli({}, 'models', 'remove', made.id)).code).toBe(0)
  })
})

describe('switchyard approvals', () => {
  it('lists a waiting call in words and denies it with a reason the model reads', async () => {
    const api = client(stack, stack.apiKey)
    const { body: created } = await api.run('zendesk.create_ticket', integration, {
      subject: 's',
      description: 'd',
    })
    const id = created.output.id
    const model = await scriptedModel(stack, stack.apiKey, [
      { tool_calls: [{ name: 'delete_ticket', arguments: { ticket_id: id }, id: 'cli_del' }] },
      { text: 'kept' },
    ])
    const agent = await api.post('/v1/agents', {
      name: 'cli model agent',
      kind: 'model',
      instructions: 'delete it',
      model: { connection: model.connectionId, name: 'sandbox-model' },
      tools: [{ tool: 'zendesk.delete_ticket', integration }],
    })
    expect(agent.status, agent.text).toBe(201)
    const run = await api.post(`/v1/agents/${agent.body.id}/runs`, { inputs: {} })
    await waitForRun(api, run.body.id, settled)
    const listed = await cli({}, 'approvals', 'list')
    expect(listed.stdout).toContain(`Delete Ticket on`)
    expect(listed.stdout).toContain(`ticket_id: ${id}`)
    const [approval] = JSON.parse((await cli({}, 'approvals', 'list', '--json')).stdout)
    const denied = await cli({}, 'approvals', 'deny', approval.id, '--reason', 'not from the CLI', '--json')
    expect(denied.code, denied.stderr).toBe(0)
    expect(JSON.parse(denied.stdout).status).toBe('decided')
    const done = await waitForRun(api, run.body.id, (r) => settled(r) && r.status !== 'waiting_for_approval')
    expect(done.status).toBe('succeeded')
    expect(JSON.stringify((await model.calls())[1].request)).toContain('not from the CLI')
    const again = await cli({}, 'approvals', 'approve', approval.id)
    expect(again.code).toBe(1)
  })
})

describe('switchyard models prices and ceilings, approvals webhook (admin settings)', () => {
  it('an admin sets a price and a ceiling; lines and --json agree; a refusal exits 1 naming the field', async () => {
    const set = await cli({}, 'models', 'price', 'my-llama', '--input', '0.5', '--output', '1.5', '--json')
    expect(set.code, set.stderr).toBe(0)
    const table = JSON.parse(set.stdout)
    expect(table.prices).toContainEqual({
      model: 'my-llama',
      input_per_mtok: 0.5,
      output_per_mtok: 1.5,
      source: 'admin',
    })
    const listed = await cli({}, 'models', 'prices')
    expect(listed.stdout).toContain(`Price table ${table.version}`)
    expect(listed.stdout).toMatch(/my-llama\s+0\.5\s+1\.5\s+admin/)
    const bad = await cli({}, 'models', 'price', 'my-llama', '--input=-1', '--output', '1')
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('prices.my-llama.input_per_mtok')
    const back = await cli({}, 'models', 'price', 'my-llama', '--shipped', '--json')
    expect(JSON.parse(back.stdout).prices.find((p: any) => p.model === 'my-llama')).toBeUndefined()

    const ceiling = await cli({}, 'models', 'ceiling', 'free', '--model-calls', '5', '--json')
    expect(ceiling.code, ceiling.stderr).toBe(0)
    expect(JSON.parse(ceiling.stdout)).toMatchObject({ plan: 'free', ceilings: { model_calls: 5 } })
    expect((await cli({}, 'models', 'ceilings')).stdout).toMatch(/free\s+5 \(admin\)/)
    await cli({}, 'models', 'ceiling', 'free')
  })

  it('sets, shows and removes the approval webhook; the secret is shown once', async () => {
    const set = await cli({}, 'approvals', 'webhook', 'set', 'https://hooks.example.com/approvals', '--json')
    expect(set.code, set.stderr).toBe(0)
    expect(JSON.parse(set.stdout).secret).toMatch(/^whsec_/)
    const shown = await cli({}, 'approvals', 'webhook')
    expect(shown.stdout).toContain('https://hooks.example.com/approvals')
    expect(shown.stdout).not.toContain('whsec_')
    expect((await cli({}, 'approvals', 'webhook', 'remove')).code).toBe(0)
    expect((await cli({}, 'approvals', 'webhook')).code).toBe(1)
  })
})
