import type { parseArgs as ParseArgs } from 'node:util'
import { answer, ask, secretFromEnv, table } from './output.ts'

export const MODELS_USAGE = `  models list [--json]                    model connections you may use (yours, shared, the sandbox model)
  models connect <name> --protocol openai-chat|openai-responses|anthropic|openai-compatible
            --base-url <url> [--api-key-env VAR] [--shared] [--json]
                                          connect a model provider; the key is read from the
                                          environment variable VAR, never from the command line
  models update <id> [--api-key-env VAR] [--base-url <url>] [--name <name>] [--json]
                                          rotate a connection's key (read from VAR, never from the
                                          command line), or change its base URL or name, in place
  models usage <id> [--json]              the model agents that use a connection (what removing it stops)
  models remove <id> [--json]             remove a model connection
  models prices [--version N] [--json]    the prices model calls are counted with, and their version
  models price <model> --input <$/MTok> --output <$/MTok> | --shipped [--json]
                                          admins: set a model's price, or go back to the shipped one
  models ceilings [--json]                each plan's budget ceilings for model agents
  models ceiling <plan> [--model-calls N] [--tool-calls N] [--tokens N] [--cost-usd X]
            [--wall-clock-s N] [--tool-errors N] [--json]
                                          admins: set a plan's ceilings (those left out: shipped)
`

interface Connection {
  id: string
  name: string
  protocol: string
  base_url: string
  has_key: boolean
  owner: string
  sandbox: boolean
}

/** `switchyard models …`: model connections, through the running service's REST API. */
export async function models(
  sub: string | undefined,
  args: string[],
  parseArgs: typeof ParseArgs,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      protocol: { type: 'string' },
      'base-url': { type: 'string' },
      'api-key-env': { type: 'string' },
      shared: { type: 'boolean' },
      name: { type: 'string' },
      version: { type: 'string' },
      input: { type: 'string' },
      output: { type: 'string' },
      shipped: { type: 'boolean' },
      'model-calls': { type: 'string' },
      'tool-calls': { type: 'string' },
      tokens: { type: 'string' },
      'cost-usd': { type: 'string' },
      'wall-clock-s': { type: 'string' },
      'tool-errors': { type: 'string' },
    },
  })
  const json = values.json ?? false
  const [first] = positionals
  switch (sub) {
    case 'list':
      return answer(json, async () => {
        const { model_connections: list } = await ask<{ model_connections: Connection[] }>(
          'GET',
          '/v1/model-connections',
        )
        return {
          value: list,
          lines: table(
            ['NAME', 'PROTOCOL', 'BASE URL', 'KEY', 'OWNER', 'ID'],
            list.map((c) => [
              c.sandbox ? `${c.name} (sandbox model: scripted, no understanding)` : c.name,
              c.protocol,
              c.base_url,
              c.has_key ? 'stored' : 'none',
              c.owner,
              c.id,
            ]),
          ),
        }
      })
    case 'connect':
      return answer(json, async () => {
        if (!first) throw new Error('usage: switchyard models connect <name> --protocol … --base-url …')
        const apiKey = secretFromEnv('--api-key-env', values['api-key-env'])
        const created = await ask<Connection>('POST', '/v1/model-connections', {
          name: first,
          protocol: values.protocol,
          base_url: values['base-url'],
          ...(apiKey ? { api_key: apiKey } : {}),
          ...(values.shared ? { shared: true } : {}),
        })
        return { value: created, lines: [`Connected ${created.name} (${created.protocol}) as ${created.id}`] }
      })
    case 'update':
      return answer(json, async () => {
        if (!first)
          throw new Error(
            'usage: switchyard models update <id> [--api-key-env VAR] [--base-url …] [--name …]',
          )
        const apiKey = secretFromEnv('--api-key-env', values['api-key-env'])
        // An empty --name or --base-url goes to the service, which says what is wrong with it.
        const changed = await ask<Connection>('PATCH', `/v1/model-connections/${encodeURIComponent(first)}`, {
          ...(apiKey !== undefined ? { api_key: apiKey } : {}),
          ...(values['base-url'] !== undefined ? { base_url: values['base-url'] } : {}),
          ...(values.name !== undefined ? { name: values.name } : {}),
        })
        return {
          value: changed,
          lines: [`Changed ${changed.name} (${changed.id})${apiKey ? ': its new key is stored sealed' : ''}`],
        }
      })
    case 'usage':
      return answer(json, async () => {
        if (!first) throw new Error('usage: switchyard models usage <id>')
        const usage = await ask<{ agents: Array<{ id: string; name: string }>; summary: string | null }>(
          'GET',
          `/v1/model-connections/${encodeURIComponent(first)}/usage`,
        )
        return {
          value: usage,
          lines: [
            usage.summary ? `${usage.summary}.` : 'No model agent uses it.',
            ...usage.agents.map((a) => `  ${a.name}  ${a.id}`),
          ],
        }
      })
    case 'remove':
      return answer(json, async () => {
        if (!first) throw new Error('usage: switchyard models remove <id>')
        await ask('DELETE', `/v1/model-connections/${encodeURIComponent(first)}`)
        return { value: { removed: first }, lines: [`Removed ${first}`] }
      })
    case 'prices':
      return answer(json, async () => {
        const query = values.version ? `?version=${encodeURIComponent(values.version)}` : ''
        const table_ = await ask<PriceTable>('GET', `/v1/model-prices${query}`)
        return { value: table_, lines: priceLines(table_) }
      })
    case 'price':
      return answer(json, async () => {
        if (!first || (!values.shipped && (values.input === undefined || values.output === undefined)))
          throw new Error(
            'usage: switchyard models price <model> --input <$/MTok> --output <$/MTok> | --shipped',
          )
        const price = values.shipped
          ? null
          : { input_per_mtok: Number(values.input), output_per_mtok: Number(values.output) }
        const changed = await ask<PriceTable>('PATCH', '/v1/model-prices', { prices: { [first]: price } })
        return {
          value: changed,
          lines: [`Prices are now version ${changed.version}`, ...priceLines(changed)],
        }
      })
    case 'ceilings':
      return answer(json, async () => {
        const { plans } = await ask<{ plans: Ceilings[] }>('GET', '/v1/plan-ceilings')
        return { value: plans, lines: ceilingLines(plans) }
      })
    case 'ceiling':
      return answer(json, async () => {
        if (!first) throw new Error('usage: switchyard models ceiling <plan> [--model-calls N] …')
        const fields = [
          'model-calls',
          'tool-calls',
          'tokens',
          'cost-usd',
          'wall-clock-s',
          'tool-errors',
        ] as const
        const body = Object.fromEntries(
          fields
            .filter((f) => values[f] !== undefined)
            .map((f) => [f.replaceAll('-', '_'), Number(values[f])]),
        )
        const set = await ask<Ceilings>('PUT', `/v1/plan-ceilings/${encodeURIComponent(first)}`, body)
        return { value: set, lines: ceilingLines([set]) }
      })
    default:
      throw new Error('usage: switchyard models list|connect|remove|prices|price|ceilings|ceiling …')
  }
}

interface PriceTable {
  version: string
  prices: Array<{ model: string; input_per_mtok: number; output_per_mtok: number; source: string }>
}

interface Ceilings {
  plan: string
  ceilings: Record<string, number>
  overridden: string[]
}

function priceLines(t: PriceTable): string[] {
  return [
    `Price table ${t.version} (US dollars per million tokens)`,
    ...table(
      ['MODEL', 'INPUT', 'OUTPUT', 'FROM'],
      t.prices.map((p) => [p.model, String(p.input_per_mtok), String(p.output_per_mtok), p.source]),
    ),
  ]
}

function ceilingLines(plans: Ceilings[]): string[] {
  const fields = ['model_calls', 'tool_calls', 'tokens', 'cost_usd', 'wall_clock_s', 'tool_errors']
  return table(
    ['PLAN', ...fields.map((f) => f.toUpperCase())],
    plans.map((p) => [
      p.plan,
      ...fields.map((f) => `${p.ceilings[f]}${p.overridden.includes(f) ? ' (admin)' : ''}`),
    ]),
  )
}
