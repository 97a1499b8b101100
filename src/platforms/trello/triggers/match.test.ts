import { describe, expect, it } from 'vitest'
import type { EventCandidate } from '../../../core/triggers/define.ts'
import { candidateOf } from './actions.ts'
import { kindsOf } from './boards.ts'
import { SAMPLE, sampleAction } from './event.ts'
import { trelloTriggers } from './index.ts'

// match() runs in the intake on whatever a delivery held: it must answer null, never throw, for
// anything that is not the action it fires on. (The real deliveries are in test/trello-triggers.test.ts.)
const instant = trelloTriggers.filter((t) => t.mode === 'instant')
const configOf = (id: string) =>
  instant
    .find((t) => t.id === id)!
    .config.parse(id === 'trello.new_board' ? {} : { board_ids: [SAMPLE.board.id] })
const candidate = (raw: unknown): EventCandidate => ({ dedupeKey: 'x', type: 'createCard', raw })

describe('match() on odd candidates', () => {
  const odd: Array<[string, unknown]> = [
    ['null', null],
    ['a string', 'createCard'],
    ['no action', { model: {} }],
    ['action is a string', { action: 'createCard' }],
    ['action without data', { action: { id: 'a', type: 'createCard', date: 'd', idMemberCreator: 'm' } }],
    [
      'data is an array',
      { action: { id: 'a', type: 'createCard', date: 'd', idMemberCreator: 'm', data: [] } },
    ],
    [
      'board is a string',
      {
        action: {
          ...sampleAction('createCard', { board: SAMPLE.board.id, list: SAMPLE.list, card: SAMPLE.card }),
        },
      },
    ],
  ]
  it.each(odd)('%s: no trigger fires, none throws', (_name, raw) => {
    for (const t of instant) expect(t.match!(candidate(raw), configOf(t.id)), t.id).toBeNull()
  })

  it('an updateCard whose `old` is not an object changed nothing a card trigger can name', () => {
    const raw = {
      action: sampleAction('updateCard', {
        board: SAMPLE.board,
        card: { ...SAMPLE.card, closed: true },
        old: 'closed',
      }),
    }
    const firing = instant.filter((t) => t.match!(candidate(raw), configOf(t.id)) !== null).map((t) => t.id)
    expect(firing).toEqual(['trello.new_board_activity', 'trello.custom_webhook_events'])
  })

  it("reads a sender's odd member stub as the creator id alone", () => {
    const action = {
      ...sampleAction('createCard', { board: SAMPLE.board, list: 'nope', card: SAMPLE.card }),
      memberCreator: 'ada',
    }
    const event = instant.find((t) => t.id === 'trello.new_card')!.match!(
      candidateOf(action as never),
      configOf('trello.new_card'),
    )
    expect(event).toMatchObject({
      member: { id: SAMPLE.member.id },
      board: SAMPLE.board,
      card: { id: SAMPLE.card.id },
    })
    expect(event).not.toHaveProperty('list')
  })

  it('Card Updated needs a changed field', () => {
    const t = instant.find((x) => x.id === 'trello.card_updated')!
    expect(
      t.match!(
        candidateOf(sampleAction('updateCard', { board: SAMPLE.board, card: SAMPLE.card })),
        configOf(t.id),
      ),
    ).toBeNull()
    expect(
      t.match!(
        candidateOf(
          sampleAction('updateCard', { board: SAMPLE.board, card: SAMPLE.card, old: { desc: '' } }),
        ),
        configOf(t.id),
      ),
    ).toMatchObject({ changed: ['desc'], old: { desc: '' } })
  })
})

describe('the kinds Custom Webhook Events filters on', () => {
  const table: Array<[string, Record<string, unknown>, string[]]> = [
    ['createCard', {}, ['create']],
    ['copyCard', {}, ['create']],
    ['convertToCardFromCheckItem', {}, ['create']],
    ['deleteCard', {}, ['delete']],
    ['updateCard', { old: { name: 'a' } }, ['update']],
    ['updateCard', { old: { idList: 'a' } }, ['update', 'move']],
    ['updateCard', { old: { closed: false }, card: { id: 'c', closed: true } }, ['update', 'archive']],
    ['updateCard', { old: { closed: true }, card: { id: 'c', closed: false } }, ['update']],
    ['updateList', { old: { closed: false }, list: { id: 'l', closed: true } }, ['update', 'archive']],
    ['moveCardToBoard', {}, ['move']],
    ['commentCard', {}, ['comment']],
    ['updateComment', {}, ['update', 'comment']],
    ['deleteComment', {}, ['delete', 'comment']],
    ['addLabelToCard', {}, ['add']],
    ['removeMemberFromCard', {}, ['remove']],
    ['voteOnCard', {}, []],
  ]
  it.each(table)('%s %j is %j', (type, data, kinds) => {
    expect(kindsOf(sampleAction(type, { board: SAMPLE.board, ...data }))).toEqual(kinds)
  })
})
