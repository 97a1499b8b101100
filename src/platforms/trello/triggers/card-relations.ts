import { z } from 'zod'
import { boardTrigger } from './board-trigger.ts'
import { SAMPLE, sampleAction, stubOf } from './event.ts'

/** What gets added to cards: comments, members, labels, checklists, attachments (docs/triggers/trello.md). */

export const newComment = boardTrigger({
  id: 'trello.new_comment_added_to_card',
  title: 'New Comment Added to Card',
  description: 'Starts when someone comments on any card of the chosen boards.',
  types: ['commentCard'],
  accept: (action) => ({
    comment: { id: action.id, text: typeof action.data.text === 'string' ? action.data.text : '' },
  }),
  event: { comment: z.object({ id: z.string(), text: z.string().describe('The comment, in Markdown') }) },
  sample: sampleAction('commentCard', {
    text: 'Reproduced on Safari 17, @ada can you look?',
    card: SAMPLE.card,
    board: SAMPLE.board,
    list: SAMPLE.list,
  }),
})

export const newMemberOnCard = boardTrigger({
  id: 'trello.new_member_on_card',
  title: 'New Member on Card',
  description: 'Starts when a member is added to a card (or joins it) on one of the chosen boards.',
  types: ['addMemberToCard'],
  accept(action) {
    const added =
      stubOf(action.data.member, ['name']) ??
      (typeof action.data.idMember === 'string' ? { id: action.data.idMember } : undefined)
    return added ? { addedMember: added } : null
  },
  event: {
    addedMember: z
      .object({ id: z.string(), name: z.string().optional() })
      .describe('Who was added to the card'),
  },
  sample: sampleAction('addMemberToCard', {
    idMember: '5f2b8c0e9d1a4b3c2d1e0f9b',
    card: SAMPLE.card,
    board: SAMPLE.board,
    member: { id: '5f2b8c0e9d1a4b3c2d1e0f9b', name: 'Ada Lovelace' },
  }),
})

const Label = z.object({
  id: z.string(),
  name: z.string().optional(),
  color: z.string().nullable().optional(),
})

export const newLabelAddedToCard = boardTrigger({
  id: 'trello.new_label_added_to_card',
  title: 'New Label Added To Card',
  description: 'Starts when a label is put on a card on one of the chosen boards.',
  types: ['addLabelToCard'],
  accept: (action) => {
    const label = stubOf(action.data.label, ['name', 'color'])
    return label ? { label } : null
  },
  event: { label: Label.describe('The label put on the card') },
  sample: sampleAction('addLabelToCard', {
    value: 'red',
    text: 'Bug',
    card: SAMPLE.card,
    board: SAMPLE.board,
    label: { id: '63d128782f36f2348afaf025', name: 'Bug', color: 'red' },
  }),
})

/**
 * Adding a checklist gives `addChecklistToCard` (captured); `createChecklist` is in the catalogue too
 * but not watched, so one new checklist fires once (sources: Trello actions and webhooks).
 */
export const newChecklist = boardTrigger({
  id: 'trello.new_checklist',
  title: 'New Checklist',
  description: 'Starts when a checklist is added to any card of the chosen boards.',
  types: ['addChecklistToCard'],
  accept: (action) => {
    const checklist = stubOf(action.data.checklist, ['name'])
    return checklist ? { checklist } : null
  },
  event: { checklist: z.object({ id: z.string(), name: z.string().optional() }) },
  sample: sampleAction('addChecklistToCard', {
    card: SAMPLE.card,
    checklist: { id: '63e2af230b9295aa94254886', name: 'Release steps' },
    board: SAMPLE.board,
  }),
})

export const newAttachment = boardTrigger({
  id: 'trello.new_attachment',
  title: 'New Attachment',
  description: 'Starts when a file or link is attached to any card of the chosen boards.',
  types: ['addAttachmentToCard'],
  accept: (action) => {
    const attachment = stubOf(action.data.attachment, ['name', 'url'])
    return attachment ? { attachment } : null
  },
  event: {
    attachment: z.object({
      id: z.string(),
      name: z.string().optional(),
      url: z.string().optional().describe('Where the file or link is'),
    }),
  },
  sample: sampleAction('addAttachmentToCard', {
    attachment: {
      id: '63e2af230b9295aa94254890',
      name: 'screenshot.png',
      url: 'https://trello.com/1/cards/63d387e699609c7f4bf0e0ce/attachments/63e2af230b9295aa94254890/download/screenshot.png',
    },
    card: SAMPLE.card,
    list: SAMPLE.list,
    board: SAMPLE.board,
  }),
})
