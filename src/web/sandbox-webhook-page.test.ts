import { describe, expect, it } from 'vitest'
import type { Subscription } from './agents-api.ts'
import { sandboxWebhookPage } from './components/SubscriptionPanels.tsx'

// In sandbox mode the manual-webhook instructions link the sandbox's own page (docs/sandbox.md "Home pages").
const sub = (platform: string, config: Record<string, unknown>) => ({ platform, config }) as Subscription
const HOME = 'http://127.0.0.1:4010/vercel'

describe('the sandbox webhook page the set-up links', () => {
  it('is the chosen project’s webhook settings page on the Vercel sandbox', () => {
    expect(sandboxWebhookPage(HOME, sub('vercel', { project_ids: ['prj_A b'] }))).toBe(
      `${HOME}/projects/prj_A%20b/settings/webhooks`,
    )
  })
  it('is the sandbox home page, which links every project’s, when no project is chosen', () => {
    expect(sandboxWebhookPage(HOME, sub('vercel', {}))).toBe(HOME)
    expect(sandboxWebhookPage(HOME, sub('vercel', { project_ids: [] }))).toBe(HOME)
  })
  it('is nothing when the platform is not a sandbox', () => {
    expect(sandboxWebhookPage(null, sub('vercel', { project_ids: ['prj_A'] }))).toBeNull()
    expect(sandboxWebhookPage(undefined, sub('vercel', {}))).toBeNull()
  })
})
