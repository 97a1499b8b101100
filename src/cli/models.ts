import type { parseArgs as ParseArgs } from 'node:util'
import { answer, ask, table } from './output.ts'

export const MODELS_USAGE = `  models list [--json]                    model connections you may use (yours, shared, the sandbox model)
  models connect <name> --protocol openai-chat|openai-responses|anthropic|openai-compatible
            --base-url <url> [--api-key-env VAR] [--shared] [--json]
                                          connect a model provider; the key is read from the
                                          environment variable VAR, never from the command line
  models remove <id> [--json]             remove a model connection
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
        const keyVar = values['api-key-env']
        const apiKey = keyVar ? process.env[keyVar] : undefined
        if (keyVar && !apiKey) throw new Error(`the environment variable ${keyVar} is not set`)
        const created = await ask<Connection>('POST', '/v1/model-connections', {
          name: first,
          protocol: values.protocol,
          base_url: values['base-url'],
          ...(apiKey ? { api_key: apiKey } : {}),
          ...(values.shared ? { shared: true } : {}),
        })
        return { value: created, lines: [`Connected ${created.name} (${created.protocol}) as ${created.id}`] }
      })
    case 'remove':
      return answer(json, async () => {
        if (!first) throw new Error('usage: switchyard models remove <id>')
        await ask('DELETE', `/v1/model-connections/${encodeURIComponent(first)}`)
        return { value: { removed: first }, lines: [`Removed ${first}`] }
      })
    default:
      throw new Error('usage: switchyard models list|connect|remove …')
  }
}
