import fs from 'node:fs'
import { callService } from './remote.ts'

/** What the service answered: the body on success; a refusal becomes an Error in a person's words. */
export class Refused extends Error {
  constructor(
    readonly body: unknown,
    readonly status?: number,
  ) {
    // The status too: a 5xx or a proxy's page says more with it, and a failure a script saw once
    // under load (issue 22, section 8) can only be explained from what was answered.
    super(problemText(body, status) + (status !== undefined && status >= 500 ? ` (HTTP ${status})` : ''))
  }
}

/**
 * A command line refused before the service is asked, in the service's own problem+json shape
 * naming the option, so `--json` prints it on stdout and a script reads both kinds alike.
 */
export function refusedOption(option: string, message: string): Refused {
  return new Refused(
    {
      type: 'https://switchyard.dev/problems/invalid_input',
      title: 'Invalid input',
      status: 400,
      code: 'invalid_input',
      detail: `${option}: ${message}`,
      errors: [{ field: option, message }],
    },
    400,
  )
}

/** The value of the environment variable an option names (a key is never put on a command line). */
export function secretFromEnv(option: string, name: string | undefined): string | undefined {
  if (name === undefined) return undefined
  const value = process.env[name]
  if (value === undefined) throw refusedOption(option, `the environment variable ${name} is not set`)
  if (value === '') throw refusedOption(option, `the environment variable ${name} is empty`)
  return value
}

/** Calls the service and returns the body, or throws Refused with the problem. */
export async function ask<T>(method: string, route: string, body?: unknown): Promise<T> {
  const result = await callService(method, route, body)
  if (!result.ok) throw new Refused(result.body, result.status)
  return result.body as T
}

/**
 * Runs one subcommand: with --json the answer (or the refusal's problem+json) goes to stdout as
 * JSON; without, the lines a person reads go to stdout and a refusal's words to stderr. Exit 1 on a refusal.
 */
export async function answer(
  json: boolean,
  work: () => Promise<{ value: unknown; lines: string[]; code?: number }>,
): Promise<number> {
  try {
    const { value, lines, code } = await work()
    process.stdout.write(
      json ? JSON.stringify(value, null, 2) + '\n' : lines.length ? lines.join('\n') + '\n' : '',
    )
    return code ?? 0
  } catch (err) {
    if (!(err instanceof Refused)) throw err
    if (json) process.stdout.write(JSON.stringify(err.body, null, 2) + '\n')
    else process.stderr.write(err.message + '\n')
    return 1
  }
}

/**
 * A problem+json answer in a person's words, each thing said once: an invalid_input's detail is its
 * field errors joined, so then each field's line is the whole message.
 */
export function problemText(body: unknown, status?: number): string {
  if (typeof body !== 'object' || body === null) return `error: ${String(body)}`
  const problem = body as { detail?: unknown; errors?: Array<{ field?: unknown; message?: unknown }> }
  const fields = (Array.isArray(problem.errors) ? problem.errors : []).map(
    (e) => `${String(e.field)}: ${String(e.message)}`,
  )
  const detail =
    typeof problem.detail === 'string'
      ? problem.detail
      : status === undefined
        ? JSON.stringify(body)
        : `the service answered ${status}`
  if (fields.length > 0 && detail === fields.join('; ')) return fields.map((f) => `error: ${f}`).join('\n')
  return [`error: ${detail}`, ...fields.map((f) => `  ${f}`)].join('\n')
}

/** A JSON option's value, or an error that names the option and shows an example. */
export function jsonOption(value: string | undefined, option: string, example: string): unknown {
  if (value === undefined) return undefined
  try {
    return JSON.parse(value)
  } catch {
    throw new Error(`${option} must be JSON, e.g. ${option} '${example}'`)
  }
}

/** A definition read from a JSON file (`-` reads stdin). */
export function jsonFile(file: string | undefined, option = '--file'): unknown {
  if (!file)
    throw new Error(`${option} is required: a JSON file with the agent's definition (docs/agents.md)`)
  let text: string
  try {
    text = fs.readFileSync(file === '-' ? 0 : file, 'utf8')
  } catch {
    throw new Error(`cannot read ${file}`)
  }
  try {
    return JSON.parse(text)
  } catch (err) {
    throw new Error(`${file} is not JSON: ${err instanceof Error ? err.message : String(err)}`)
  }
}

/** A time as a person reads it, in UTC: 2026-11-23 20:28:34 UTC. */
export function when(value: unknown): string {
  if (typeof value !== 'string' && !(value instanceof Date)) return '-'
  const date = new Date(value)
  return Number.isNaN(date.getTime())
    ? String(value)
    : `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`
}

/** A duration as a person reads it: 250 ms, 1.4 s, 3 min 5 s. */
export function duration(ms: unknown): string {
  if (typeof ms !== 'number') return '-'
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`
}

/** Rows as aligned columns under a header. */
export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)))
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd()
  return [line(header), ...rows.map(line)]
}

interface AgentRef {
  id: string
  name: string
}

/** The options every paged list takes (docs/cli.md): as query parameters of its route. */
export const PAGE_OPTIONS = {
  limit: { type: 'string' },
  cursor: { type: 'string' },
  search: { type: 'string' },
} as const

export function pageQuery(values: { limit?: string; cursor?: string; search?: string }): URLSearchParams {
  const query = new URLSearchParams()
  if (values.limit !== undefined) query.set('limit', values.limit)
  if (values.cursor !== undefined) query.set('cursor', values.cursor)
  if (values.search !== undefined) query.set('q', values.search)
  return query
}

/** The line that says how to get the next page, as `runs list` prints it. */
export function moreLine(nextCursor: string | null): string[] {
  return nextCursor ? [`more: add --cursor ${nextCursor}`] : []
}

/** How many of the caller's agents a "no agent has the name" error names. */
const NAMED_IN_HINT = 10

/**
 * An agent by id, else by name (exact, then ignoring case). Each is one request the service answers
 * from an index (GET /v1/agents/{id}, GET /v1/agents?name=), never every page of the caller's
 * agents (issue 22, §7).
 */
export async function resolveAgent(ref: string): Promise<AgentRef> {
  try {
    return await ask<AgentRef>('GET', `/v1/agents/${encodeURIComponent(ref)}`)
  } catch (err) {
    if (!(err instanceof Refused) || err.status !== 404) throw err
  }
  const { agents: named } = await ask<{ agents: AgentRef[] }>(
    'GET',
    `/v1/agents?${new URLSearchParams({ name: ref, limit: '200' })}`,
  )
  const match = named.find((a) => a.name === ref)
  if (match) return match
  if (named.length === 1) return named[0]
  if (named.length > 1)
    throw new Error(
      `several agents are named "${ref}" apart from case: ${named.map((a) => `${a.id} ("${a.name}")`).join(', ')}; give an id`,
    )
  const some = await ask<{ agents: AgentRef[]; next_cursor: string | null }>(
    'GET',
    `/v1/agents?limit=${NAMED_IN_HINT}`,
  )
  const names = some.agents.map((a) => `"${a.name}"`).join(', ')
  throw new Error(
    `no agent has the id or name "${ref}"${
      some.agents.length
        ? `; yours ${some.next_cursor ? `include ${names}, … (agents list --search finds others)` : `are ${names}`}`
        : '; you have none yet'
    }`,
  )
}
