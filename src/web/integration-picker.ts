import type { Integration } from './api.ts'

/**
 * The integration pickers (a step's, a model tool's, a trigger's, the tool runner's) ask the server
 * for one short page of a platform's integrations, searched with `q`, instead of following every
 * cursor of the list (issue 22, §7: 1,000 integrations were many requests before a step could be
 * edited). When there are more, the picker says so and offers its search box.
 */
export const PICKER_LIMIT = 20

/** Said beside an integration that cannot run a step now. */
export const STATUS_NOTE: Record<string, string> = {
  needs_reconnection: ' (needs reconnection)',
  disconnected: ' (disconnected)',
}

/** The line a picker shows below its choices when the server has more than one page. */
export const MORE_TEXT = 'more — type to search'

export interface PickerPage {
  integrations: Integration[]
  next_cursor: string | null
}

export interface PickerSource {
  /** One page: GET /v1/integrations?platform=&q=&limit= */
  page: (params: { platform: string; q?: string; limit: number }) => Promise<PickerPage>
  /** One integration by id: GET /v1/integrations/{id} (rejects when there is none). */
  get: (id: string) => Promise<Integration>
}

const STATUS_ORDER: Record<string, number> = { active: 0, needs_reconnection: 1, disconnected: 2 }
const rank = (i: Integration) => STATUS_ORDER[i.status] ?? 1

/** One page of a platform's integrations matching the search; never a second page. */
export async function loadChoices(
  source: PickerSource,
  platform: string,
  q: string,
): Promise<{ choices: Integration[]; more: boolean }> {
  const words = q.trim()
  const page = await source.page({ platform, ...(words ? { q: words } : {}), limit: PICKER_LIMIT })
  return { choices: page.integrations, more: page.next_cursor !== null }
}

/**
 * The integration a picker holds, found by id (a saved definition holds ids) or, for one written by
 * account name over the API, by that name among the platform's; null when the person no longer has it.
 */
export async function resolveCurrent(
  source: PickerSource,
  platform: string,
  ref: string,
): Promise<Integration | null> {
  if (!ref) return null
  const byId = await source.get(ref).catch(() => null)
  if (byId) return byId.platform === platform ? byId : null
  const named = await source.page({ platform, q: ref, limit: PICKER_LIMIT }).catch(() => null)
  return named?.integrations.find((i) => i.account_name === ref) ?? null
}

/**
 * What the select lists: the page's integrations, usable ones first and disconnected ones last,
 * with the current choice kept (first) when the page does not hold it, so it always shows by name.
 */
export function shownChoices(page: readonly Integration[], current: Integration | null): Integration[] {
  const sorted = [...page].sort((a, b) => rank(a) - rank(b))
  return current && !sorted.some((i) => i.id === current.id) ? [current, ...sorted] : sorted
}

/** The first choice for a step or trigger that has none yet: an active integration, else the first. */
export function firstChoice(choices: readonly Integration[]): string {
  return (choices.find((i) => i.status === 'active') ?? choices[0])?.id ?? ''
}
