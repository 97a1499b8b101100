import fs from 'node:fs'
import path from 'node:path'
import type { Config } from '../core/config.ts'
import type { RunningService } from '../server/app.ts'

export const ADMIN_KEY_FILE = 'admin-api-key'

/**
 * On the embedded default's first start, create a first user and put its API key in a 0600 file
 * beside the data, not on the console: terminals get logged and shared, and secrets never go there.
 */
export async function bootstrapFirstUser(running: RunningService, config: Config): Promise<void> {
  const { users } = running.services
  const keyFile = path.join(config.dataDir, ADMIN_KEY_FILE)
  if (!config.production && (await users.count()) === 0) {
    const user = await users.create({ email: 'admin@switchyard.local', name: 'Admin', plan: 'enterprise' })
    const { key } = await users.createApiKey(user.id, 'first start')
    fs.mkdirSync(config.dataDir, { recursive: true })
    fs.writeFileSync(keyFile, key + '\n', { mode: 0o600 })
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
  if (fs.existsSync(keyFile)) {
    lines.push(
      `  Your API key is in ${keyFile} (readable only by you).`,
      `  Web app:  open ${running.url}/login and paste it (cat ${path.relative(process.cwd(), keyFile) || keyFile})`,
      `  REST:     curl -H "Authorization: Bearer $(cat ${keyFile})" ${running.url}/v1/tools`,
      '  CLI:      npx switchyard tools list',
    )
  }
  process.stdout.write(lines.join('\n') + '\n\n')
}
