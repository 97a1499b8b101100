import type { ApiClient } from '../../core/http/api-client.ts'
import type { FieldOption } from '../../core/tools/define.ts'
import { wholeListing } from '../../core/tools/options.ts'

// Trello's listings have neither search nor pages, so options are fetched whole and filtered and
// paged in memory (wholeListing). Ids are the 24-character ones every step takes.

/** Trello answers 50 labels unless asked for more; 1000 is its most. */
const MAX_LABELS = 1000

interface NamedBoard {
  id: string
  name: string
  lists?: Array<{ id: string; name: string }>
}

const openBoards = (api: ApiClient, withLists = false): Promise<NamedBoard[]> =>
  api.get('/1/members/me/boards', { filter: 'open', ...(withLists ? { lists: 'open' } : {}) })

const boardOfCard = async (api: ApiClient, idCard: string): Promise<string> =>
  (await api.get(`/1/cards/${encodeURIComponent(idCard)}`)).idBoard

const boardOfList = async (api: ApiClient, idList: string): Promise<string> =>
  (await api.get(`/1/lists/${encodeURIComponent(idList)}`)).idBoard

/** The member's open boards. */
export const boardOptions = wholeListing('trello.boards', async ({ api }) =>
  (await openBoards(api)).map((b) => ({ value: b.id, label: b.name })),
)

/** The open lists of every open board, labelled "Board / List", for steps that take a list alone. */
export const listOptions = wholeListing('trello.lists', async ({ api }) =>
  (await openBoards(api, true)).flatMap((b) =>
    (b.lists ?? []).map((l) => ({ value: l.id, label: `${b.name} / ${l.name}` })),
  ),
)

/** The open lists of the board a card is on: where Update Card can move it. */
export const listsOfCardBoardOptions = wholeListing(
  'trello.lists-of-card-board',
  async ({ api }, depends) => {
    const board = await boardOfCard(api, depends.card_id!)
    const lists: Array<{ id: string; name: string }> = await api.get(`/1/boards/${board}/lists`, {
      filter: 'open',
    })
    return lists.map((l) => ({ value: l.id, label: l.name }))
  },
  ['card_id'],
)

/** The open cards of every open board, labelled "Board / Card" and described by their list. */
export const cardOptions = wholeListing('trello.cards', async ({ api }) => {
  const boards = await openBoards(api, true)
  const perBoard = await Promise.all(
    boards.map(async (board) => {
      const cards: Array<{ id: string; name: string; idList: string }> = await api.get(
        `/1/boards/${board.id}/cards`,
        { filter: 'open' },
      )
      const listNames = new Map((board.lists ?? []).map((l) => [l.id, l.name]))
      return cards.map((c): FieldOption => ({
        value: c.id,
        label: `${board.name} / ${c.name}`,
        description: listNames.get(c.idList),
      }))
    }),
  )
  return perBoard.flat()
})

async function labelsOf(api: ApiClient, board: string): Promise<FieldOption[]> {
  const labels: Array<{ id: string; name: string; color: string | null }> = await api.get(
    `/1/boards/${board}/labels`,
    { limit: MAX_LABELS },
  )
  return labels.map((l) => ({
    value: l.id,
    label: l.name || `(${l.color ?? 'no colour'})`,
    ...(l.color ? { description: l.color } : {}),
  }))
}

/** The labels of the board a list is on: the labels a new card there can take. */
export const labelsOfListBoardOptions = wholeListing(
  'trello.labels-of-list-board',
  async ({ api }, depends) => labelsOf(api, await boardOfList(api, depends.list_id!)),
  ['list_id'],
)

/** The labels of the board a card is on. */
export const labelsOfCardBoardOptions = wholeListing(
  'trello.labels-of-card-board',
  async ({ api }, depends) => labelsOf(api, await boardOfCard(api, depends.card_id!)),
  ['card_id'],
)

/** The members of the board a card is on: who can be put on the card. */
export const membersOfCardBoardOptions = wholeListing(
  'trello.members-of-card-board',
  async ({ api }, depends) => {
    const board = await boardOfCard(api, depends.card_id!)
    const members: Array<{ id: string; fullName: string; username: string }> = await api.get(
      `/1/boards/${board}/members`,
    )
    return members.map((m) => ({
      value: m.id,
      label: m.fullName || m.username,
      description: `@${m.username}`,
    }))
  },
  ['card_id'],
)

/** The checklists on the open cards of every open board, labelled "Board / Card / Checklist". */
export const checklistOptions = wholeListing('trello.checklists', async ({ api }) => {
  const boards = await openBoards(api)
  const perBoard = await Promise.all(
    boards.map(async (board) => {
      const detail: {
        cards?: Array<{ id: string; name: string }>
        checklists?: Array<{ id: string; name: string; idCard: string }>
      } = await api.get(`/1/boards/${board.id}`, { cards: 'open', checklists: 'all' })
      const cardNames = new Map((detail.cards ?? []).map((c) => [c.id, c.name]))
      return (detail.checklists ?? [])
        .filter((c) => cardNames.has(c.idCard))
        .map((c): FieldOption => ({
          value: c.id,
          label: `${board.name} / ${cardNames.get(c.idCard)} / ${c.name}`,
        }))
    }),
  )
  return perBoard.flat()
})
