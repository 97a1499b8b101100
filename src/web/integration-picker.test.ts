import { describe, expect, it } from 'vitest'
import type { Integration } from './api.ts'
import {
  firstChoice,
  loadChoices,
  PICKER_LIMIT,
  resolveCurrent,
  shownChoices,
  type PickerPage,
  type PickerSource,
} from './integration-picker.ts'

const integration = (id: string, platform: string, status: Integration['status'], account_name = id) =>
  ({ id, platform, status, account_name }) as Integration

/** 1,000 Trello integrations behind a fake GET /v1/integrations that pages and searches as the server does. */
function fakeServer(count = 1_000) {
  const all = Array.from({ length: count }, (_, i) =>
    integration(`int_${i}`, 'trello', 'active', `account${i}`),
  )
  const asked: string[] = []
  const source: PickerSource = {
    page: async ({ platform, q, limit }) => {
      asked.push(`page platform=${platform} q=${q ?? ''} limit=${limit}`)
      const found = all.filter((i) => i.platform === platform && (!q || i.account_name.includes(q)))
      return {
        integrations: found.slice(0, limit),
        next_cursor: found.length > limit ? 'next' : null,
      } as PickerPage
    },
    get: async (id) => {
      asked.push(`get ${id}`)
      const found = all.find((i) => i.id === id)
      if (!found) throw new Error('404')
      return found
    },
  }
  return { source, asked }
}

describe('integration pickers ask the server for one page, searched, never every page', () => {
  it('with 1,000 integrations: one request of a short page, and "more" is said', async () => {
    const { source, asked } = fakeServer()
    const { choices, more } = await loadChoices(source, 'trello', '')
    expect(asked).toEqual([`page platform=trello q= limit=${PICKER_LIMIT}`])
    expect(choices).toHaveLength(PICKER_LIMIT)
    expect(more).toBe(true)
  })

  it('a search is sent to the server; a page that holds everything found says no more', async () => {
    const { source, asked } = fakeServer()
    const { choices, more } = await loadChoices(source, 'trello', ' account999 ')
    expect(asked).toEqual([`page platform=trello q=account999 limit=${PICKER_LIMIT}`])
    expect(choices.map((i) => i.id)).toEqual(['int_999'])
    expect(more).toBe(false)
  })

  it('the current choice, beyond the first page, is resolved by id and shown by its name', async () => {
    const { source, asked } = fakeServer()
    const current = await resolveCurrent(source, 'trello', 'int_700')
    expect(asked).toEqual(['get int_700'])
    expect(current?.account_name).toBe('account700')
    const { choices } = await loadChoices(source, 'trello', '')
    expect(shownChoices(choices, current)[0]!.id).toBe('int_700')
    expect(shownChoices(choices, current)).toHaveLength(PICKER_LIMIT + 1)
  })

  it('one written by account name over the API is found by that name; one that is gone is null', async () => {
    const { source } = fakeServer()
    expect((await resolveCurrent(source, 'trello', 'account42'))?.id).toBe('int_42')
    expect(await resolveCurrent(source, 'trello', 'int_gone')).toBeNull()
    expect(await resolveCurrent(source, 'zendesk', 'int_3')).toBeNull()
    expect(await resolveCurrent(source, 'trello', '')).toBeNull()
  })
})

describe("a disconnected integration is never the first choice in a step's picker", () => {
  it.each([
    [['disconnected', 'active'], 'b'],
    [['needs_reconnection', 'disconnected', 'active'], 'c'],
    [['active', 'disconnected'], 'a'],
    [['disconnected'], 'a'],
  ] as Array<[Integration['status'][], string]>)(
    'statuses %j: %s is chosen first, and usable ones are listed first',
    (statuses, first) => {
      const page = statuses.map((s, i) => integration(String.fromCharCode(97 + i), 'zendesk', s))
      const shown = shownChoices(page, null)
      expect(firstChoice(shown)).toBe(first)
      expect(shown[0]!.status === 'active' || !statuses.includes('active')).toBe(true)
      expect(shown.at(-1)!.status !== 'disconnected' || statuses.includes('disconnected')).toBe(true)
    },
  )

  it('no integration of the platform: nothing chosen', () => {
    expect(firstChoice(shownChoices([], null))).toBe('')
  })
})
