import type { parseArgs as ParseArgs } from 'node:util'
import { callService } from './remote.ts'

export const TOOL_OPTIONS_USAGE = `  tools options <id> <field> --integration <id|account name> [--q <words>] [--set <field>=<value> …] [--cursor <c>] [--json]
                                          the choices for an id field, from the connected account
                                          (--set gives the fields the options depend on, e.g. --set list_id=…)`

export const TRIGGER_OPTIONS_USAGE = `  triggers options <id> <field> --integration <id|account name> [--q <words>] [--set <field>=<value> …] [--cursor <c>] [--json]
                                          the choices for a trigger's configuration field (boards, lists, projects)
`

interface OptionsAnswer {
  options: Array<{ value: string | number; label: string; description?: string }>
  next_cursor: string | null
}

/**
 * `switchyard tools options` and `switchyard triggers options`: what a picker in the web app shows,
 * for the terminal (docs/tool-options.md); a tool step's input and a trigger's configuration share it.
 */
export async function fieldOptions(
  catalogue: 'tools' | 'triggers',
  args: string[],
  parseArgs: typeof ParseArgs,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      integration: { type: 'string' },
      q: { type: 'string' },
      cursor: { type: 'string' },
      set: { type: 'string', multiple: true },
    },
  })
  const [id, field] = positionals
  if (!id || !field)
    throw new Error(
      catalogue === 'tools'
        ? 'tools options needs a tool id and a field, e.g. tools options trello.create_card list_id --integration …'
        : 'triggers options needs a trigger id and a field, e.g. triggers options trello.new_card board_ids --integration …',
    )
  if (!values.integration) throw new Error('--integration is required (an integration id or account name)')
  const query = new URLSearchParams({ integration: values.integration })
  if (values.q !== undefined) query.set('q', values.q)
  if (values.cursor !== undefined) query.set('cursor', values.cursor)
  for (const pair of values.set ?? []) {
    const eq = pair.indexOf('=')
    if (eq <= 0) throw new Error(`--set takes <field>=<value>, e.g. --set list_id=5f…; got "${pair}"`)
    const name = pair.slice(0, eq)
    if (['integration', 'q', 'cursor'].includes(name))
      throw new Error(`--set ${name}=… is not a field; use --${name}`)
    query.set(name, pair.slice(eq + 1))
  }
  const result = await callService(
    'GET',
    `/v1/${catalogue}/${encodeURIComponent(id)}/options/${encodeURIComponent(field)}?${query}`,
  )
  if (values.json || !result.ok) {
    process.stdout.write(JSON.stringify(result.body, null, 2) + '\n')
    return result.ok ? 0 : 1
  }
  const { options, next_cursor } = result.body as OptionsAnswer
  const width = Math.max(0, ...options.map((o) => String(o.value).length))
  const lines = options.map(
    (o) => `${String(o.value).padEnd(width)}  ${o.label}${o.description ? `  (${o.description})` : ''}`,
  )
  if (options.length === 0) lines.push(values.q ? `no options match "${values.q}"` : 'no options')
  if (next_cursor) lines.push(`more: add --cursor ${next_cursor}`)
  process.stdout.write(lines.join('\n') + '\n')
  return 0
}
