import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { runCli } from './helpers/cli.ts'
import { client } from './helpers/stack.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'

// `switchyard models update` against a running stack (docs/model-agents.md, "Rotating a key"): the
// new key is read from the environment and never printed; each refusal names the field, on stdout
// as problem+json with --json, and exits 1. The stack holds base URLs to public networks, as
// production does (SWITCHYARD_AGENT_NETWORKS=public).
// Each test starts the CLI (a fresh Node process) several times, a few seconds each on a busy machine.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 })
const OLD_KEY = 'sk-cli-old-0123456789'
const NEW_KEY = 'sk-cli-rotated-9876543210'
let stack: TestStack
let connectionId: string

beforeAll(async () => {
  stack = await startTestStack({ config: { agentNetworks: 'public' } })
  const created = await client(stack, stack.apiKey).post('/v1/model-connections', {
    name: 'cli-rotated',
    protocol: 'openai-chat',
    base_url: 'https://api.openai.com/v1',
    api_key: OLD_KEY,
  })
  expect(created.status, created.text).toBe(201)
  connectionId = created.body.id
})
afterAll(async () => {
  await stack?.close()
})

const cli = (env: Record<string, string>, ...args: string[]) => runCli(stack, args, env)

const storedKey = async () =>
  (await stack.services.modelConnections.endpoint(stack.userId, connectionId)).apiKey

describe('switchyard models update', () => {
  it('rotates the key from the environment in place, --json answering the connection without it', async () => {
    const rotated = await cli(
      { NEW_KEY },
      'models',
      'update',
      connectionId,
      '--api-key-env',
      'NEW_KEY',
      '--json',
    )
    expect(rotated.code, rotated.stderr).toBe(0)
    expect(JSON.parse(rotated.stdout)).toMatchObject({
      id: connectionId,
      name: 'cli-rotated',
      has_key: true,
      base_url: 'https://api.openai.com/v1',
    })
    expect(rotated.stdout + rotated.stderr).not.toContain(NEW_KEY)
    expect(await storedKey()).toBe(NEW_KEY)

    const renamed = await cli({}, 'models', 'update', connectionId, '--name', 'cli-renamed')
    expect(renamed.code, renamed.stderr).toBe(0)
    expect(renamed.stdout.trim()).toBe(`Changed cli-renamed (${connectionId})`)
    expect(await storedKey()).toBe(NEW_KEY)
  })

  // Each hostile line holds a secret in the environment the command may read: it must never show.
  const SECRET = 'sk-cli-never-shown-5555'
  it.each([
    {
      what: 'an unknown id',
      args: ['mc_nobody', '--api-key-env', 'K'],
      env: { K: SECRET },
      field: undefined,
      says: 'model connection mc_nobody not found',
    },
    {
      what: 'an empty environment variable',
      args: [null, '--api-key-env', 'K'],
      env: { K: '' },
      field: '--api-key-env',
      says: 'the environment variable K is empty',
    },
    {
      what: 'an environment variable that is not set',
      args: [null, '--api-key-env', 'SWITCHYARD_TEST_UNSET_KEY'],
      env: {} as Record<string, string>,
      field: '--api-key-env',
      says: 'the environment variable SWITCHYARD_TEST_UNSET_KEY is not set',
    },
    {
      what: 'a base URL on loopback, outside SWITCHYARD_AGENT_NETWORKS=public',
      args: [null, '--base-url', 'http://127.0.0.1:11434/v1', '--api-key-env', 'K'],
      env: { K: SECRET },
      field: 'base_url',
      says: 'SWITCHYARD_AGENT_NETWORKS',
    },
    {
      what: 'a base URL on a private network',
      args: [null, '--base-url', 'http://192.168.1.20:1234/v1'],
      env: { K: SECRET },
      field: 'base_url',
      says: '192.168.1.20',
    },
    {
      what: 'an empty name',
      args: [null, '--name', ''],
      env: { K: SECRET },
      field: 'name',
      says: 'give the connection a name',
    },
    {
      what: 'nothing to change',
      args: [null],
      env: { K: SECRET },
      field: 'api_key',
      says: 'give a new api_key, base_url or name',
    },
  ])('$what is refused naming the field, exit 1, no secret shown', async ({ args, env, field, says }) => {
    const argv = args.map((a) => a ?? connectionId)
    const before = await storedKey()
    const json = await cli(env, 'models', 'update', ...argv, '--json')
    expect(json.code, json.stdout + json.stderr).toBe(1)
    const problem = JSON.parse(json.stdout)
    expect(problem.detail).toContain(says)
    if (field) expect(problem.errors.map((e: { field: string }) => e.field)).toEqual([field])
    const words = await cli(env, 'models', 'update', ...argv)
    expect(words.code).toBe(1)
    expect(words.stdout).toBe('')
    expect(words.stderr).toContain(says)
    if (field) expect(words.stderr).toContain(`${field}: `)
    for (const out of [json.stdout, json.stderr, words.stdout, words.stderr]) {
      expect(out).not.toContain(SECRET)
      expect(out).not.toContain(NEW_KEY)
    }
    expect(await storedKey()).toBe(before)
  })
})
