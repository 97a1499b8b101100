import { buildAction } from './actions.ts'
import {
  NO_CHECK_ITEM_DETAILS,
  type App,
  type Board,
  type Card,
  type Checklist,
  type Label,
  type List,
  type Member,
} from './model.ts'
import { boardStub, cardStub, listStub } from './presenters.ts'
import type { TrelloStore } from './state.ts'

/**
 * The seeded world, with fixed values other tests rely on (documented in docs/sandbox.md).
 * Every seeded record was "created" at 2024-01-01T00:00:00.000Z; their ObjectIds embed that
 * second (0x65920080) followed by `5eed00000000` and a 4-hex serial.
 */
export const SEED_TIME_MS = Date.UTC(2024, 0, 1)

export function seedId(serial: number): string {
  return `659200805eed00000000${serial.toString(16).padStart(4, '0')}`
}

export const SEED = {
  password: 'sandbox',
  members: {
    ada: { id: seedId(0x01), username: 'ada', fullName: 'Ada Lovelace', email: 'ada@trello.test' },
    grace: { id: seedId(0x02), username: 'grace', fullName: 'Grace Hopper', email: 'grace@trello.test' },
  },
  app: {
    id: seedId(0x03),
    name: 'Switchyard',
    key: '0123456789abcdef0123456789abcdef',
    secret: 'fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210',
    /** Any port on localhost or 127.0.0.1, over http. */
    allowedOrigins: ['http://localhost:*', 'http://127.0.0.1:*'],
  },
  board: { id: seedId(0x10), name: 'Roadmap', shortLink: 'Rdmp2024' },
  lists: {
    todo: { id: seedId(0x11), name: 'To Do', pos: 16384 },
    doing: { id: seedId(0x12), name: 'Doing', pos: 32768 },
    done: { id: seedId(0x13), name: 'Done', pos: 49152 },
  },
  labels: {
    feature: { id: seedId(0x20), name: 'Feature', color: 'green' },
    bug: { id: seedId(0x21), name: 'Bug', color: 'red' },
    docs: { id: seedId(0x22), name: 'Docs', color: 'blue' },
  },
  cards: {
    api: { id: seedId(0x30), name: 'Design the API', shortLink: 'Card0001', idShort: 1 },
    docs: { id: seedId(0x31), name: 'Write the docs', shortLink: 'Card0002', idShort: 2 },
    login: { id: seedId(0x32), name: 'Fix login bug', shortLink: 'Card0003', idShort: 3 },
    ship: { id: seedId(0x33), name: 'Ship v1', shortLink: 'Card0004', idShort: 4 },
  },
  checklist: {
    id: seedId(0x40),
    name: 'Launch checklist',
    items: {
      draft: { id: seedId(0x41), name: 'Draft endpoints' },
      review: { id: seedId(0x42), name: 'Review with Grace' },
      publish: { id: seedId(0x43), name: 'Publish' },
    },
  },
  comment: { id: seedId(0x5a), text: 'Looks good to me, @ada' },
} as const

function member(
  spec: { id: string; username: string; fullName: string; email: string },
  initials: string,
): Member {
  return { ...spec, initials, password: SEED.password, createdAt: SEED_TIME_MS }
}

export function seedStore(store: TrelloStore): void {
  const ada = member(SEED.members.ada, 'AL')
  const grace = member(SEED.members.grace, 'GH')
  store.members.set(ada.id, ada)
  store.members.set(grace.id, grace)

  const app: App = {
    id: SEED.app.id,
    name: SEED.app.name,
    key: SEED.app.key,
    secret: SEED.app.secret,
    idMemberOwner: ada.id,
    allowedOrigins: [...SEED.app.allowedOrigins],
    createdAt: SEED_TIME_MS,
  }
  store.apps.set(app.key, app)

  const board: Board = {
    id: SEED.board.id,
    name: SEED.board.name,
    desc: 'What we are building next.',
    closed: false,
    shortLink: SEED.board.shortLink,
    idMemberCreator: ada.id,
    memberships: new Map([
      [ada.id, { id: seedId(0x14), memberType: 'admin' as const }],
      [grace.id, { id: seedId(0x15), memberType: 'normal' as const }],
    ]),
    permissionLevel: 'private',
    nextIdShort: 5,
    dateLastActivity: SEED_TIME_MS,
    createdAt: SEED_TIME_MS,
  }
  store.boards.set(board.id, board)

  for (const spec of Object.values(SEED.lists)) {
    const list: List = { ...spec, idBoard: board.id, closed: false }
    store.lists.set(list.id, list)
  }
  for (const spec of Object.values(SEED.labels)) {
    const label: Label = { ...spec, idBoard: board.id }
    store.labels.set(label.id, label)
  }

  const card = (
    spec: { id: string; name: string; shortLink: string; idShort: number },
    fields: Partial<Card> & { idList: string; pos: number },
  ): void => {
    store.cards.set(spec.id, {
      ...spec,
      idBoard: board.id,
      desc: '',
      closed: false,
      due: null,
      start: null,
      dueComplete: false,
      idMembers: [],
      idLabels: [],
      dateLastActivity: SEED_TIME_MS,
      comments: 0,
      attachments: [],
      ...fields,
    })
  }
  const { cards, lists, labels } = SEED
  card(cards.api, {
    idList: lists.doing.id,
    pos: 16384,
    desc: 'Sketch the REST surface.',
    due: Date.UTC(2024, 1, 1, 12),
    idMembers: [ada.id],
    idLabels: [labels.feature.id],
  })
  card(cards.docs, { idList: lists.todo.id, pos: 16384, idMembers: [grace.id], idLabels: [labels.docs.id] })
  card(cards.login, { idList: lists.todo.id, pos: 32768, idLabels: [labels.bug.id] })
  card(cards.ship, { idList: lists.done.id, pos: 16384, due: Date.UTC(2024, 0, 15, 12), dueComplete: true })

  const items = SEED.checklist.items
  const checklist: Checklist = {
    id: SEED.checklist.id,
    name: SEED.checklist.name,
    idBoard: board.id,
    idCard: cards.api.id,
    pos: 16384,
    checkItems: [
      {
        ...items.draft,
        idChecklist: SEED.checklist.id,
        pos: 16384,
        state: 'complete',
        ...NO_CHECK_ITEM_DETAILS,
      },
      {
        ...items.review,
        idChecklist: SEED.checklist.id,
        pos: 32768,
        state: 'incomplete',
        ...NO_CHECK_ITEM_DETAILS,
      },
      {
        ...items.publish,
        idChecklist: SEED.checklist.id,
        pos: 49152,
        state: 'incomplete',
        ...NO_CHECK_ITEM_DETAILS,
      },
    ],
  }
  store.checklists.set(checklist.id, checklist)

  // A short history, so action lists are not empty: ada made the board and its cards,
  // grace commented on "Design the API". (No notifications or deliveries for the seed.)
  const history = (
    serial: number,
    who: Member,
    type: string,
    translationKey: string,
    data: Record<string, unknown>,
  ) =>
    store.addAction(
      buildAction(seedId(serial), SEED_TIME_MS, { member: who, app: null }, { type, translationKey, data }),
    )
  history(0x50, ada, 'createBoard', 'action_create_board', { board: boardStub(board) })
  let serial = 0x51
  for (const spec of Object.values(cards)) {
    const seeded = store.cards.get(spec.id) as Card
    const list = store.lists.get(seeded.idList) as List
    history(serial++, ada, 'createCard', 'action_create_card', {
      card: cardStub(seeded),
      list: listStub(list),
      board: boardStub(board),
    })
  }
  const api = store.cards.get(cards.api.id) as Card
  api.comments = 1
  history(0x5a, grace, 'commentCard', 'action_comment_on_card', {
    text: SEED.comment.text,
    textData: { emoji: {} },
    card: cardStub(api),
    board: boardStub(board),
    list: listStub(store.lists.get(api.idList) as List),
  })
}
