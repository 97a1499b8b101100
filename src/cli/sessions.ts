import type { parseArgs as ParseArgs } from 'node:util'
import { callService } from './remote.ts'
import { problemText } from './output.ts'

interface SessionRow {
  id: string
  method: string
  user_agent: string
  created_at: string
  last_seen_at: string
}

export const SESSIONS_USAGE = `  sessions list [--json]                  your browser sessions (the API key's owner's)
  sessions end <id> [--json]              end one of them
  sessions end --all [--json]             sign out everywhere: end every one of them
`

/** `switchyard sessions …`: the key owner's web sessions, through the running service (docs/security.md, "People"). */
export async function sessions(
  sub: string | undefined,
  args: string[],
  parseArgs: typeof ParseArgs,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, all: { type: 'boolean' } },
  })
  const json = values.json ?? false
  switch (sub) {
    case 'list': {
      const result = await callService('GET', '/v1/me/sessions')
      if (!result.ok) return failed(result.body, json)
      const rows = (result.body as { sessions: SessionRow[] }).sessions
      if (json) return print(rows, true)
      if (rows.length === 0) return print('No browser sessions.', false)
      return print(
        [
          `${'SIGNED IN'.padEnd(25)} ${'WITH'.padEnd(9)} ${'LAST USED'.padEnd(25)} ID`,
          ...rows.map(
            (r) =>
              `${r.created_at.padEnd(25)} ${r.method.padEnd(9)} ${r.last_seen_at.padEnd(25)} ${r.id}  ${r.user_agent.slice(0, 40)}`,
          ),
        ].join('\n'),
        false,
      )
    }
    case 'end': {
      const [id] = positionals
      if (values.all) {
        const result = await callService('DELETE', '/v1/me/sessions')
        if (!result.ok) return failed(result.body, json)
        const { ended } = result.body as { ended: number }
        return json
          ? print({ ended }, true)
          : print(`Signed out everywhere: ${ended} session(s) ended.`, false)
      }
      if (!id) throw new Error('usage: switchyard sessions end <id>, or --all to end every one')
      const result = await callService('DELETE', `/v1/me/sessions/${encodeURIComponent(id)}`)
      if (!result.ok) return failed(result.body, json)
      return json ? print({ ended: 1 }, true) : print(`Ended session ${id}.`, false)
    }
    default:
      throw new Error('usage: switchyard sessions list|end …')
  }
}

function print(value: unknown, json: boolean): number {
  process.stdout.write((json ? JSON.stringify(value, null, 2) : String(value)) + '\n')
  return 0
}

function failed(body: unknown, json: boolean): number {
  if (json) process.stdout.write(JSON.stringify(body, null, 2) + '\n')
  else process.stderr.write(problemText(body) + '\n')
  return 1
}
