import type { parseArgs as ParseArgs } from 'node:util'
import { loadConfig } from '../core/config.ts'
import { ToolRegistry } from '../core/tools/catalog.ts'
import { platforms } from '../platforms/index.ts'
import { startService } from '../server/app.ts'
import { bootstrapFirstUser } from './bootstrap.ts'
import { diagnoseConfig } from './doctor.ts'
import { callService } from './remote.ts'
import { toolOptions, TOOL_OPTIONS_USAGE } from './tool-options.ts'
import { users, USERS_USAGE } from './users.ts'

const USAGE = `Usage: switchyard <command>

  start                                   run the service (embedded default: PGlite in ./data and the sandboxes)
  sandbox [--port N]                      run the platform sandboxes alone (default port 4010)
  doctor [--json]                         check the configuration and print what is missing
  tools list [--json]                     the tool step catalogue
  tools search <words> [--json]           search the catalogue
  tools run <id> --integration <id|account name> --input <json>
                                          run a tool step through the running service
                                          (SWITCHYARD_URL, SWITCHYARD_API_KEY or ./data/admin-api-key)
${TOOL_OPTIONS_USAGE}
${USERS_USAGE}`

export async function runCli(argv: string[], parseArgs: typeof ParseArgs): Promise<number | undefined> {
  const [command, sub, ...rest] = argv
  switch (command) {
    case 'start': return start()
    case 'sandbox': return sandbox(argv.slice(1), parseArgs)
    case 'tools': return tools(sub, rest, parseArgs)
    case 'users': return users(sub, rest, parseArgs)
    case 'doctor': return doctor(argv.slice(1), parseArgs)
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(USAGE)
      return 0
    default:
      process.stderr.write(`unknown command: ${command}\n\n${USAGE}`)
      return 2
  }
}

async function start(): Promise<undefined> {
  const config = loadConfig()
  const running = await startService(config, { logger: true })
  try {
    await bootstrapFirstUser(running, config)
  } catch (err) {
    await running.close()
    throw err
  }
  const stop = async () => {
    await running.close()
    process.exit(0)
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
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
  process.stdout.write(`Sandboxes listening on ${server.url}\n${sandboxes.map((s) => `  ${s.title}: ${server.url}${s.prefix}`).join('\n')}\nSee docs/sandbox.md for accounts and the control API.\n`)
  return undefined
}

function doctor(args: string[], parseArgs: typeof ParseArgs): number {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean' } } })
  const checks = diagnoseConfig()
  const ok = checks.every((c) => c.ok)
  if (values.json) process.stdout.write(JSON.stringify({ ok, checks }, null, 2) + '\n')
  else process.stdout.write(checks.map((c) => `${c.ok ? 'ok     ' : 'MISSING'} ${c.name}: ${c.detail}`).join('\n') + '\n')
  return ok ? 0 : 1
}

async function tools(sub: string | undefined, args: string[], parseArgs: typeof ParseArgs): Promise<number> {
  if (sub === 'options') return toolOptions(args, parseArgs)
  const registry = new ToolRegistry(platforms)
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, integration: { type: 'string' }, input: { type: 'string' } },
  })
  switch (sub) {
    case 'list':
    case 'search': {
      const entries = sub === 'list' ? registry.list() : registry.search(positionals.join(' '))
      const rows = entries.map(({ id, title, platform, kind, effect, inputSchema, outputSchema, legacy, fieldOptions }) =>
        ({ id, title, platform, kind, effect, legacy, inputSchema, outputSchema, fieldOptions }))
      if (values.json) process.stdout.write(JSON.stringify(rows, null, 2) + '\n')
      else process.stdout.write(rows.map((r) => `${r.id.padEnd(28)} ${r.effect.padEnd(6)} ${r.title}${r.legacy ? ' (legacy)' : ''}`).join('\n') + '\n')
      return 0
    }
    case 'run': {
      const [id] = positionals
      if (!id) throw new Error('tools run needs a tool id, e.g. zendesk.create_ticket')
      if (!values.integration) throw new Error('--integration is required (an integration id or account name)')
      let input: unknown = {}
      if (values.input !== undefined) {
        try {
          input = JSON.parse(values.input)
        } catch {
          throw new Error('--input must be JSON, e.g. --input \'{"ticket_id": 1}\'')
        }
      }
      const result = await callService('POST', `/v1/tools/${encodeURIComponent(id)}/run`, { integration: values.integration, input })
      process.stdout.write(JSON.stringify(result.body, null, 2) + '\n')
      return result.ok ? 0 : 1
    }
    default:
      throw new Error('usage: switchyard tools list|search|run|options …')
  }
}
