import fs from 'node:fs'
import path from 'node:path'
import type { Config } from '../core/config.ts'
import { AppError } from '../core/errors.ts'
import type { RunningService } from '../server/app.ts'

export const ADMIN_KEY_FILE = 'admin-api-key'
/** Where `start` writes the URL it serves at, for the CLI to find it (src/cli/remote.ts). Not a secret. */
export const SERVICE_URL_FILE = 'service-url'

/**
 * On a first start with no users, create the first admin and put its API key in a 0600 file beside
 * the data, not on the console: terminals get logged and shared, and secrets never go there. The
 * embedded default names it admin@switchyard.local; production creates it only when
 * SWITCHYARD_ADMIN_EMAIL names it, since a made-up address has no place there.
 */
export async function bootstrapFirstUser(running: RunningService, config: Config): Promise<void> {
  const { users } = running.services
  const keyFile = path.join(config.dataDir, ADMIN_KEY_FILE)
  const email = config.adminEmail ?? (config.production ? undefined : 'admin@switchyard.local')
  const noUsers = (await users.count()) === 0
  if (noUsers && email) {
    try {
      // The first user is an admin: the one who can add the others (docs/security.md).
      const user = await users.create({ email, name: 'Admin', plan: 'enterprise', role: 'admin' })
      const { key } = await users.createApiKey(user.id, 'first start')
      fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 })
      fs.writeFileSync(keyFile, key + '\n', { mode: 0o600 })
    } catch (err) {
      // Several instances starting at once on one database: another one created it first.
      if (!(err instanceof AppError && err.code === 'conflict')) throw err
    }
  }
  const lines = [
    '',
    `Switchyard is running at ${running.url}`,
    ...(running.sandboxUrl
      ? [
          `  Sandboxes (no account needed) at ${running.sandboxUrl}; sign in there as admin@acme.test (Zendesk),`,
          '  ada@trello.test (Trello) or ada@vercel.test (Vercel), password sandbox. See docs/sandbox.md.',
        ]
      : ['  Production mode: no sandboxes. `npx switchyard doctor` lists what is still to configure.']),
  ]
  if (noUsers && !email) {
    lines.push(
      '  No user exists yet: set SWITCHYARD_ADMIN_EMAIL and restart to create the first admin (docs/configuration.md).',
    )
  }
  if (fs.existsSync(keyFile)) {
    lines.push(
      `  Your API key is in ${keyFile} (readable only by you).`,
      `  Web app:  open ${running.url}/login, choose "Sign in with an API key instead" and paste it (cat ${path.relative(process.cwd(), keyFile) || keyFile});`,
      `            then set a password on Account (your email, top right) and invite people on Users.`,
      `  REST:     curl -H "Authorization: Bearer $(cat ${keyFile})" ${running.url}/v1/tools`,
      `  CLI:      ${cliLine(config)}`,
    )
  }
  process.stdout.write(lines.join('\n') + '\n\n')
}

/**
 * Writes the URL this instance serves at where the CLI looks for it (src/cli/remote.ts), so the CLI
 * on this machine follows whatever PORT or public URL `start` was given. Returns a function that
 * removes it on a clean stop, unless another instance has written its own since.
 */
export function recordServiceUrl(url: string, dataDir: string): () => void {
  const file = path.join(dataDir, SERVICE_URL_FILE)
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  fs.writeFileSync(file, url + '\n', { mode: 0o644 })
  fs.chmodSync(file, 0o644) // an address, not a secret; a file left by an older start keeps its mode otherwise
  return () => {
    try {
      if (fs.readFileSync(file, 'utf8').trim() === url) fs.unlinkSync(file)
    } catch {
      /* already gone */
    }
  }
}

/**
 * The exact command that reaches this instance from here: the CLI finds the URL and the key in the
 * data directory, so only a data directory other than the default must be named.
 */
export function cliLine(config: Config, cwd: string = process.cwd()): string {
  const defaultDir = path.resolve(cwd, 'data')
  const prefix = config.dataDir === defaultDir ? '' : `SWITCHYARD_DATA_DIR=${shellQuote(config.dataDir)} `
  return `${prefix}npx switchyard tools list`
}

function shellQuote(value: string): string {
  return /^[\w./:@-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`
}
