import type { parseArgs as ParseArgs } from 'node:util'
import {
  answer,
  ask,
  jsonFile,
  jsonOption,
  moreLine,
  PAGE_OPTIONS,
  pageQuery,
  resolveAgent,
  table,
  when,
} from './output.ts'
import { describeRun, FINISHED, type Run } from './runs.ts'

export const AGENTS_USAGE = `  agents list [--search <words>] [--limit N] [--cursor <c>] [--json]
                                          your agents, newest first, a page at a time, with kind, version and step count
  agents get <id|name> [--version N] [--json]
  agents create --file <definition.json> [--json]
                                          a new agent (docs/agents.md); an external one's signing secret is shown once
  agents update <id|name> --file <definition.json> [--json]
                                          save a new version
  agents delete <id|name> [--json]        delete it and its triggers
  agents run <id|name> [--inputs <json>] [--wait] [--timeout <seconds>] [--json]
                                          start a run and print its id; --wait prints the outcome and timeline
                                          and exits 1 when the run failed or was cancelled
`

interface Agent {
  id: string
  name: string
  description: string
  kind: 'steps' | 'external' | 'model'
  version: number
  inputs: Array<{ name: string; type: string; required: boolean; description: string }>
  steps: Array<{
    key: string
    tool: string
    tool_title: string
    integration: string
    integration_name: string | null
    condition?: string
    on_failure: string
    input: unknown
  }>
  output: Record<string, unknown>
  external?: { url: string }
  created_at: string
  updated_at: string
  signing_secret?: string
}

const WAIT_POLL_MS = 500
const DEFAULT_WAIT_SECONDS = 300

/** `switchyard agents …`: agents and their runs, through the running service's REST API. */
export async function agents(
  sub: string | undefined,
  args: string[],
  parseArgs: typeof ParseArgs,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      file: { type: 'string' },
      version: { type: 'string' },
      inputs: { type: 'string' },
      wait: { type: 'boolean' },
      timeout: { type: 'string' },
      ...PAGE_OPTIONS,
    },
  })
  const json = values.json ?? false
  const [ref] = positionals
  const needRef = () => {
    if (!ref) throw new Error(`usage: switchyard agents ${sub} <id|name>`)
    return ref
  }
  switch (sub) {
    case 'list':
      return answer(json, async () => {
        const query = pageQuery(values)
        const page = await ask<{ agents: Agent[]; next_cursor: string | null }>(
          'GET',
          `/v1/agents${query.size ? `?${query}` : ''}`,
        )
        const list = page.agents
        const lines =
          list.length === 0
            ? ['no agents yet; create one with switchyard agents create --file <definition.json>']
            : table(
                ['NAME', 'KIND', 'VERSION', 'STEPS', 'UPDATED', 'ID'],
                list.map((a) => [
                  a.name,
                  a.kind,
                  String(a.version),
                  a.kind === 'steps' ? String(a.steps.length) : '-',
                  when(a.updated_at),
                  a.id,
                ]),
              )
        lines.push(...moreLine(page.next_cursor))
        return { value: page, lines }
      })
    case 'get': {
      const name = needRef()
      return answer(json, async () => {
        const { id } = await resolveAgent(name)
        const version = values.version ? `?version=${encodeURIComponent(values.version)}` : ''
        const agent = await ask<Agent>('GET', `/v1/agents/${encodeURIComponent(id)}${version}`)
        return { value: agent, lines: describeAgent(agent) }
      })
    }
    case 'create': {
      const definition = jsonFile(values.file)
      return answer(json, async () => {
        const agent = await ask<Agent>('POST', '/v1/agents', definition)
        return {
          value: agent,
          lines: [
            `Created agent ${agent.name} (${agent.kind}), version ${agent.version}, id ${agent.id}`,
            ...secretLines(agent),
          ],
        }
      })
    }
    case 'update': {
      const name = needRef()
      const definition = jsonFile(values.file)
      return answer(json, async () => {
        const { id } = await resolveAgent(name)
        const agent = await ask<Agent>('PUT', `/v1/agents/${encodeURIComponent(id)}`, definition)
        return {
          value: agent,
          lines: [`Saved ${agent.name} as version ${agent.version}`, ...secretLines(agent)],
        }
      })
    }
    case 'delete': {
      const name = needRef()
      return answer(json, async () => {
        const agent = await resolveAgent(name)
        const done = await ask<{ manual_cleanup?: Array<{ message: string }> } | undefined>(
          'DELETE',
          `/v1/agents/${encodeURIComponent(agent.id)}`,
        )
        // A webhook the user added at a platform by hand stays there until they remove it.
        const cleanup = done?.manual_cleanup ?? []
        return {
          value: { id: agent.id, name: agent.name, deleted: true, manual_cleanup: cleanup },
          lines: [
            `Deleted agent ${agent.name} (${agent.id}) and its triggers`,
            ...cleanup.map((c) => `To do: ${c.message}`),
          ],
        }
      })
    }
    case 'run': {
      const name = needRef()
      const inputs = jsonOption(values.inputs, '--inputs', '{"subject": "Printer on fire"}') ?? {}
      const timeoutSeconds = values.timeout === undefined ? DEFAULT_WAIT_SECONDS : Number(values.timeout)
      if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0)
        throw new Error('--timeout must be a number of seconds, e.g. --timeout 60')
      return answer(json, async () => {
        const { id } = await resolveAgent(name)
        const started = await ask<Run>('POST', `/v1/agents/${encodeURIComponent(id)}/runs`, { inputs })
        if (!values.wait)
          return {
            value: started,
            lines: [
              `Started run ${started.id} of ${started.agent_name} v${started.agent_version} (${started.status})`,
            ],
          }
        const run = await waitFor(started.id, timeoutSeconds * 1000)
        if (run.status === 'waiting_for_approval')
          return {
            value: run,
            lines: [`Run ${run.id} waits for a person's approval: switchyard approvals list`],
            code: 0,
          }
        if (!FINISHED.has(run.status)) {
          return {
            value: run,
            lines: [
              `Run ${run.id} is still ${run.status} after ${timeoutSeconds} s; follow it with switchyard runs get ${run.id}`,
            ],
            code: 1,
          }
        }
        return { value: run, lines: describeRun(run), code: run.status === 'succeeded' ? 0 : 1 }
      })
    }
    default:
      throw new Error('usage: switchyard agents list|get|create|update|delete|run …')
  }
}

async function waitFor(runId: string, timeoutMs: number): Promise<Run> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const run = await ask<Run>('GET', `/v1/runs/${encodeURIComponent(runId)}`)
    if (FINISHED.has(run.status) || run.status === 'waiting_for_approval' || Date.now() >= deadline)
      return run
    await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS))
  }
}

function secretLines(agent: Agent): string[] {
  if (!agent.signing_secret) return []
  return [
    'Its signing secret, shown this once; the agent verifies deliveries with it (docs/agents.md):',
    agent.signing_secret,
  ]
}

function describeAgent(agent: Agent): string[] {
  const lines = [
    `${agent.name} (${agent.kind}), version ${agent.version}, id ${agent.id}`,
    ...(agent.description ? [`  ${agent.description}`] : []),
    `  updated ${when(agent.updated_at)}`,
    '',
    agent.inputs.length ? 'Inputs:' : 'Inputs: none',
    ...agent.inputs.map(
      (i) =>
        `  ${i.name}: ${i.type}${i.required ? ', required' : ''}${i.description ? `  ${i.description}` : ''}`,
    ),
  ]
  if (agent.kind === 'external') lines.push('', `Delivers runs to ${agent.external?.url ?? '-'}`)
  else {
    lines.push('', 'Steps:')
    agent.steps.forEach((s, i) => {
      lines.push(
        `  ${i + 1}. ${s.key}: ${s.tool_title} (${s.tool}) on ${s.integration_name ?? s.integration}` +
          `${s.condition ? `, only if ${s.condition}` : ''}${s.on_failure === 'continue' ? ', continues on failure' : ''}`,
      )
    })
  }
  const output = Object.entries(agent.output ?? {})
  if (output.length)
    lines.push(
      '',
      'Output:',
      ...output.map(([k, v]) => `  ${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`),
    )
  return lines
}
