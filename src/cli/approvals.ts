import type { parseArgs as ParseArgs } from 'node:util'
import { answer, ask, table, when } from './output.ts'

export const APPROVALS_USAGE = `  approvals list [--status pending|decided|expired|all] [--json]
                                          tool calls of model runs waiting for a person
  approvals approve <approval id> [--call <tool_call_id>] [--input <JSON>] [--for-run] [--json]
                                          approve every call (or one), with edited input, or
                                          that tool for the rest of the run
  approvals deny <approval id> [--call <tool_call_id>] [--reason <words>] [--json]
                                          deny; the reason is given to the model
  approvals webhook [set <url> | remove] [--installation] [--json]
                                          the signed webhook told when an approval waits (yours,
                                          or the installation's for admins); set shows its secret once
`

interface Approval {
  id: string
  run_id: string
  agent_name: string
  status: string
  calls: Array<{ tool_call_id: string; words: string }>
  decisions: Record<string, { decision: string }>
  expires_at: string
}

/** `switchyard approvals …`: decide model runs' tool calls, through the running service's REST API. */
export async function approvals(
  sub: string | undefined,
  args: string[],
  parseArgs: typeof ParseArgs,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      status: { type: 'string' },
      call: { type: 'string' },
      input: { type: 'string' },
      reason: { type: 'string' },
      'for-run': { type: 'boolean' },
      installation: { type: 'boolean' },
    },
  })
  const json = values.json ?? false
  const [id] = positionals
  const decide = (decision: string) =>
    answer(json, async () => {
      if (!id) throw new Error(`usage: switchyard approvals ${sub} <approval id>`)
      const approval = await ask<Approval>('GET', `/v1/approvals/${encodeURIComponent(id)}`)
      const open = approval.calls.filter((c) => !approval.decisions[c.tool_call_id])
      const calls = values.call ? open.filter((c) => c.tool_call_id === values.call) : open
      if (calls.length === 0)
        throw new Error(values.call ? `no open call ${values.call}` : 'no open call to decide')
      let input: unknown
      if (values.input !== undefined) {
        try {
          input = JSON.parse(values.input)
        } catch {
          throw new Error('--input must be a JSON object')
        }
      }
      const decided = await ask<Approval>('POST', `/v1/approvals/${encodeURIComponent(id)}/decide`, {
        decisions: calls.map((c) => ({
          tool_call_id: c.tool_call_id,
          decision,
          ...(input !== undefined ? { input } : {}),
          ...(values.reason ? { reason: values.reason } : {}),
        })),
      })
      return {
        value: decided,
        lines: calls.map((c) => `${decision === 'deny' ? 'Denied' : 'Approved'}: ${c.words}`),
      }
    })
  switch (sub) {
    case 'list':
      return answer(json, async () => {
        const query = values.status ? `?status=${encodeURIComponent(values.status)}` : ''
        const { approvals: list } = await ask<{ approvals: Approval[] }>('GET', `/v1/approvals${query}`)
        return {
          value: list,
          lines: list.length
            ? table(
                ['ID', 'AGENT', 'RUN', 'STATUS', 'EXPIRES', 'CALLS'],
                list.map((a) => [
                  a.id,
                  a.agent_name,
                  a.run_id,
                  a.status,
                  when(a.expires_at),
                  a.calls.map((c) => c.words).join(' | '),
                ]),
              )
            : ['no approvals waiting'],
        }
      })
    case 'approve':
      return decide(values['for-run'] ? 'approve_for_run' : 'approve')
    case 'deny':
      return decide('deny')
    case 'webhook':
      return answer(json, async () => {
        const where = values.installation ? '/v1/admin/approval-webhook' : '/v1/approval-webhook'
        const [verb, url] = positionals
        if (verb === 'set') {
          if (!url) throw new Error('usage: switchyard approvals webhook set <url> [--installation]')
          const set = await ask<{ url: string; secret: string }>('PUT', where, { url })
          return {
            value: set,
            lines: [
              `Approvals waiting are told to ${set.url}`,
              `Signing secret (shown once; verify deliveries with any Standard Webhooks library): ${set.secret}`,
            ],
          }
        }
        if (verb === 'remove') {
          await ask('DELETE', where)
          return { value: { removed: true }, lines: ['Removed the approval webhook'] }
        }
        if (verb) throw new Error('usage: switchyard approvals webhook [set <url> | remove] [--installation]')
        const hook = await ask<{ url: string; created_at: string }>('GET', where)
        return { value: hook, lines: [`${hook.url} (since ${hook.created_at})`] }
      })
    default:
      throw new Error('usage: switchyard approvals list|approve|deny|webhook …')
  }
}
