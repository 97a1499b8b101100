import { describe, expect, it } from 'vitest'
import type { Integration } from './api.ts'
import { integrationChoices } from './integration-choice.ts'

const integration = (id: string, platform: string, status: Integration['status']) =>
  ({ id, platform, status, account_name: id }) as Integration

describe("a disconnected integration is never the first choice in a step's picker", () => {
  it.each([
    [['disconnected', 'active'], 'b'],
    [['needs_reconnection', 'disconnected', 'active'], 'c'],
    [['active', 'disconnected'], 'a'],
    [['disconnected'], 'a'],
  ] as Array<[Integration['status'][], string]>)(
    'statuses %j: %s is chosen first, and usable ones are listed first',
    (statuses, first) => {
      const all = statuses.map((s, i) => integration(String.fromCharCode(97 + i), 'zendesk', s))
      const { choices, first: chosen } = integrationChoices(
        [...all, integration('x', 'trello', 'active')],
        'zendesk',
      )
      expect(chosen).toBe(first)
      expect(choices.map((c) => c.platform)).toEqual(statuses.map(() => 'zendesk'))
      expect(choices[0]!.status === 'active' || !statuses.includes('active')).toBe(true)
    },
  )

  it('no integration of the platform: nothing chosen', () => {
    expect(integrationChoices([integration('x', 'trello', 'active')], 'zendesk')).toEqual({
      choices: [],
      first: '',
    })
  })
})
