import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startZendeskSandbox } from './index.ts'
import { AGENT, basic, call, PASSWORD } from './test-support.ts'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('dataDir', () => {
  it('keeps state across restarts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'zendesk-sandbox-'))
    dirs.push(dataDir)
    const auth = basic(AGENT, PASSWORD)

    const first = await startZendeskSandbox({ dataDir })
    const created = await call(`${first.url}/acme/api/v2/tickets.json`, { auth, json: { ticket: { subject: 'Persisted', comment: { body: 'still here' } } } })
    expect(created.status).toBe(201)
    const minted = await call(`${first.url}/_control/accounts/acme/api_tokens`, { json: {} })
    await first.close()

    const second = await startZendeskSandbox({ dataDir })
    try {
      const shown = await call(`${second.url}/acme/api/v2/tickets/${created.body.ticket.id}.json`, { auth })
      expect(shown.body.ticket.subject).toBe('Persisted')
      const comments = await call(`${second.url}/acme/api/v2/tickets/${created.body.ticket.id}/comments`, { auth })
      expect(comments.body.comments[0].body).toBe('still here')
      const viaToken = await call(`${second.url}/acme/api/v2/users/me`, { auth: basic(`${AGENT}/token`, minted.body.api_token.token) })
      expect(viaToken.body.user.email).toBe(AGENT)
      const next = await call(`${second.url}/acme/api/v2/tickets.json`, { auth, json: { ticket: { comment: { body: 'next' } } } })
      expect(next.body.ticket.id).toBe(created.body.ticket.id + 1)
    } finally {
      await second.close()
    }
  })
})
