import type { parseArgs as ParseArgs } from 'node:util'
// What only `start`, `doctor` and the tool catalogue need (the service, the platform registry, the
// database drivers) is imported by those commands when they run: the commands that talk to a running
// service load only their own few modules, so each answers in a fraction of the start-up time.
import { exitOnSignal } from './exit-on-signal.ts'
import { callService } from './remote.ts'
import { problemText } from './output.ts'
import { fieldOptions, TOOL_OPTIONS_USAGE } from './field-options.ts'
import { users, USERS_USAGE } from './users.ts'
import { sessions, SESSIONS_USAGE } from './sessions.ts'
import { summaryLine } from './summary-line.ts'
import { agents, AGENTS_USAGE } from './agents.ts'
import { runs, RUNS_USAGE } from './runs.ts'
import { retention, RETENTION_USAGE } from './retention.ts'
import { subscriptions, SUBSCRIPTIONS_USAGE } from './subscriptions.ts'
import { triggers, TRIGGERS_USAGE } from './triggers.ts'
import { models, MODELS_USAGE } from './models.ts'
import { approvals, APPROVALS_USAGE } from './approvals.ts'

const TOOLS_USAGE = `  tools list [--json]                     the tool step catalogue
  tools search <words> [--json]           search the catalogue
  tools run <id> --integration <id|account name> --input <json>
                                          run a tool step through the running service
                                          (SWITCHYARD_URL, else the URL \`start\` wrote in ./data/service-url;
                                          SWITCHYARD_API_KEY, else ./data/admin-api-key)
${TOOL_OPTIONS_USAGE}
`

/** Each command's own lines, for `switchyard <command> --help` (and `help <command>`). */
const COMMAND_USAGE: Record<string, string> = {
  start: `  start                                   run the service (embedded default: PGlite in ./data and the sandboxes)\n`,
  sandbox: `  sandbox [--port N]                      run the platform sandboxes alone (default port 4010)\n`,
  doctor: `  doctor [--json]                         check the configuration and print what is missing\n`,
  tools: TOOLS_USAGE,
  mcp: `  mcp                                     serve the running service's tools over MCP on stdio,
                                          for desktop clients (same key settings; docs/mcp.md)\n`,
  users: USERS_USAGE,
  sessions: SESSIONS_USAGE,
  retention: RETENTION_USAGE,
  agents: AGENTS_USAGE,
  runs: RUNS_USAGE,
  models: MODELS_USAGE,
  approvals: APPROVALS_USAGE,
  triggers: TRIGGERS_USAGE,
  subscriptions: SUBSCRIPTIONS_USAGE,
}

const USAGE = `Usage: switchyard <command> [--help]

${Object.values(COMMAND_USAGE).join('')}
Agents, runs and triggers: docs/agents.md and docs/triggers.md. Every command takes --json.
`

/** \`switchyard <command> [sub] --help\` and \`switchyard help <command>\`: that command's lines, exit 0. */
function helpFor(argv: string[]): string | undefined {
  const [command, sub] = argv
  if (command === 'help' || command === '--help' || command === '-h')
    return sub && COMMAND_USAGE[sub] ? `Usage: switchyard ${sub} …\n\n${COMMAND_USAGE[sub]}` : USAGE
  if (command === undefined) return USAGE
  if (!argv.includes('--help') && !argv.includes('-h')) return undefined
  const lines = COMMAND_USAGE[command]
  return lines ? `Usage: switchyard ${command} …\n\n${lines}` : USAGE
}

export async function runCli(argv: string[], parseArgs: typeof ParseArgs): Promise<number | undefined> {
  const help = helpFor(argv)
  if (help !== undefined) {
    process.stdout.write(help)
    return 0
  }
  const [command, sub, ...rest] = argv
  switch (command) {
    case 'start':
      return start()
    case 'sandbox':
      return sandbox(argv.slice(1), parseArgs)
    case 'tools':
      return tools(sub, rest, parseArgs)
    case 'users':
      return users(sub, rest, parseArgs)
    case 'sessions':
      return sessions(sub, rest, parseArgs)
    case 'retention':
      return retention(sub === undefined ? rest : [sub, ...rest], parseArgs)
    case 'agents':
      return agents(sub, rest, parseArgs)
    case 'runs':
      return runs(sub, rest, parseArgs)
    case 'models':
      return models(sub, rest, parseArgs)
    case 'approvals':
      return approvals(sub, rest, parseArgs)
    case 'triggers':
      return triggers(sub, rest, parseArgs)
    case 'subscriptions':
      return subscriptions(sub, rest, parseArgs)
    case 'doctor':
      return doctor(argv.slice(1), parseArgs)
    case 'mcp':
      // The MCP SDK is loaded only by the command that speaks it: \`start\` never holds it for this.
      return (await import('./mcp.ts')).serveMcpOverStdio()
    default:
      process.stderr.write(`unknown command: ${command}\n\n${USAGE}`)
      return 2
  }
}

async function start(): Promise<undefined> {
  const { loadConfig } = await import('../core/config.ts')
  const { startService } = await import('../server/app.ts')
  const { bootstrapFirstUser, recordServiceUrl } = await import('./bootstrap.ts')
  const config = loadConfig()
  const running = await startService(config, { logger: true })
  let forgetUrl = () => {}
  try {
    forgetUrl = recordServiceUrl(running.url, config.dataDir)
    await bootstrapFirstUser(running, config)
  } catch (err) {
    forgetUrl()
    await running.close()
    throw err
  }
  exitOnSignal(async () => {
    forgetUrl()
    await running.close()
  })
  return undefined
}

async function sandbox(args: string[], parseArgs: typeof ParseArgs): Promise<undefined> {
  const { values } = parseArgs({ args, options: { port: { type: 'string' }, host: { type: 'string' } } })
  const port = values.port === undefined ? 4010 : Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port must be a port number')
  // The one command that is all sandbox: it loads the emulators on purpose, never the product.
  const { startSandboxServer } = await import('../sandboxes/server.ts')
  const { sandboxes } = await import('../sandboxes/index.ts')
  const server = await startSandboxServer({ port, host: values.host })
  process.stdout.write(
    `Sandboxes listening on ${server.url}\n${sandboxes.map((s) => `  ${s.title}: ${server.url}${s.prefix}`).join('\n')}\nSee docs/sandbox.md for accounts and the control API.\n`,
  )
  exitOnSignal(() => server.close())
  return undefined
}

async function doctor(args: string[], parseArgs: typeof ParseArgs): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean' } } })
  const { loadConfig } = await import('../core/config.ts')
  const { diagnoseConfig } = await import('./doctor.ts')
  const { autovacuumCheck } = await import('./doctor-database.ts')
  const checks = diagnoseConfig()
  const databaseUrl = loadConfig().databaseUrl
  if (databaseUrl) checks.push(await autovacuumCheck(databaseUrl))
  const ok = checks.every((c) => c.ok)
  if (values.json) process.stdout.write(JSON.stringify({ ok, checks }, null, 2) + '\n')
  else
    process.stdout.write(
      checks.map((c) => `${c.ok ? 'ok     ' : 'MISSING'} ${c.name}: ${c.detail}`).join('\n') + '\n',
    )
  return ok ? 0 : 1
}

async function tools(sub: string | undefined, args: string[], parseArgs: typeof ParseArgs): Promise<number> {
  if (sub === 'options') return fieldOptions('tools', args, parseArgs)
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, integration: { type: 'string' }, input: { type: 'string' } },
  })
  switch (sub) {
    case 'list':
    case 'search': {
      const words = positionals.join(' ')
      if (sub === 'search' && words.trim() === '')
        throw new Error('tools search needs words, e.g. tools search ticket')
      const { ToolRegistry } = await import('../core/tools/catalog.ts')
      const { platforms } = await import('../platforms/index.ts')
      const registry = new ToolRegistry(platforms)
      const entries = sub === 'list' ? registry.list() : registry.search(words)
      const rows = entries.map(
        ({
          id,
          title,
          description,
          platform,
          kind,
          effect,
          inputSchema,
          outputSchema,
          legacy,
          fieldOptions,
        }) => ({
          id,
          title,
          description,
          platform,
          kind,
          effect,
          legacy,
          inputSchema,
          outputSchema,
          fieldOptions,
        }),
      )
      // No match is an answer, not a failure: said on stderr, so stdout stays what --json promises.
      if (rows.length === 0)
        process.stderr.write(
          `No tool step matches "${words}". Try fewer words, or \`switchyard tools list\`.\n`,
        )
      if (values.json) process.stdout.write(JSON.stringify(rows, null, 2) + '\n')
      else if (rows.length > 0)
        process.stdout.write(
          rows
            .map((r) => `${r.id.padEnd(28)} ${r.effect.padEnd(6)} ${r.title}${r.legacy ? ' (legacy)' : ''}`)
            .join('\n') + '\n',
        )
      return 0
    }
    case 'run': {
      const [id] = positionals
      if (!id) throw new Error('tools run needs a tool id, e.g. zendesk.create_ticket')
      if (!values.integration)
        throw new Error('--integration is required (an integration id or account name)')
      let input: unknown = {}
      if (values.input !== undefined) {
        try {
          input = JSON.parse(values.input)
        } catch {
          throw new Error('--input must be JSON, e.g. --input \'{"ticket_id": 1}\'')
        }
      }
      const result = await callService('POST', `/v1/tools/${encodeURIComponent(id)}/run`, {
        integration: values.integration,
        input,
      })
      const line = values.json ? null : summaryLine(result.body)
      if (line) process.stdout.write(line + '\n')
      process.stdout.write(JSON.stringify(result.body, null, 2) + '\n')
      if (!result.ok) process.stderr.write(problemText(result.body, result.status) + '\n')
      return result.ok ? 0 : 1
    }
    default:
      throw new Error('usage: switchyard tools list|search|run|options …')
  }
}
