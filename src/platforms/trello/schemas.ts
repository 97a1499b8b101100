import { z } from 'zod'

/** Trello's longest texts: card names and descriptions, comments, check items (docs/platforms/trello.md, "Facts"). */
export const MAX_TEXT_LENGTH = 16_384

/** Ids are 24-character lowercase hex ObjectIds (docs/platforms/trello.md, "Facts"); checked here so a bad one is never sent. */
const OBJECT_ID = /^[0-9a-f]{24}$/

/** A Trello id of the named kind, e.g. `trelloId('card')`. */
export const trelloId = (kind: string) =>
  z
    .string({ error: `must be a ${kind} id (24 lowercase hexadecimal characters)` })
    .trim()
    .regex(
      OBJECT_ID,
      `must be a ${kind} id: 24 lowercase hexadecimal characters, like 5f2b8c0e9d1a4b3c2d1e0f9a`,
    )

export const TrelloId = trelloId('Trello')

/** An id in an answer: no trimming, just the shape Trello promises. */
const Id = z.string().regex(OBJECT_ID)

/** Where an item goes among its siblings; answers always carry the resulting number. */
export const Pos = z
  .union([z.enum(['top', 'bottom']), z.number().positive()], {
    error: 'must be "top", "bottom" or a positive number',
  })
  .describe('"top", "bottom" or a positive number; items sort by ascending pos')

/** Trello accepts and answers ISO 8601 date-times; a date alone would be read in the server's zone. */
export const DateTimeInput = z.iso.datetime({
  offset: true,
  error: 'must be an ISO 8601 date-time such as 2025-03-01T17:00:00Z',
})
const IsoDate = z.iso.datetime({ offset: true })

/** A one-line name (card, list, checklist, check item): not blank, within Trello's bound. */
export const Name = z.string().trim().min(1, 'must not be empty').max(MAX_TEXT_LENGTH)
/** Free text that may be empty (a card description). */
export const Text = z.string().max(MAX_TEXT_LENGTH)

export const Label = z.looseObject({ id: Id, idBoard: Id, name: z.string(), color: z.string().nullable() })

export const Card = z.looseObject({
  id: Id,
  name: z.string(),
  desc: z.string(),
  closed: z.boolean(),
  idBoard: Id,
  idList: Id,
  pos: z.number(),
  due: IsoDate.nullable(),
  dueComplete: z.boolean(),
  idLabels: z.array(Id),
  idMembers: z.array(Id),
  labels: z.array(Label).optional(),
  dateLastActivity: IsoDate,
  shortLink: z.string(),
  shortUrl: z.string(),
  url: z.string(),
})

export const List = z.looseObject({
  id: Id,
  name: z.string(),
  closed: z.boolean(),
  idBoard: Id,
  pos: z.number(),
})

export const Board = z.looseObject({
  id: Id,
  name: z.string(),
  desc: z.string(),
  closed: z.boolean(),
  url: z.string(),
  shortUrl: z.string(),
  shortLink: z.string(),
})

export const CheckItem = z.looseObject({
  id: Id,
  name: z.string(),
  idChecklist: Id,
  pos: z.number(),
  state: z.enum(['complete', 'incomplete']),
  due: IsoDate.nullable().optional(),
})

export const Checklist = z.looseObject({
  id: Id,
  name: z.string(),
  idCard: Id,
  idBoard: Id,
  pos: z.number(),
  checkItems: z.array(CheckItem),
})

export const Action = z.looseObject({
  id: Id,
  type: z.string(),
  date: IsoDate,
  idMemberCreator: Id,
  data: z.looseObject({}),
})

/** What `POST /1/cards/{id}/actions/comments` answers (docs/platforms/trello.md, "Facts"). */
export const CommentAction = Action.extend({
  type: z.literal('commentCard'),
  data: z.looseObject({ text: z.string(), card: z.looseObject({ id: Id, name: z.string() }) }),
})

/** A bound on the labels or members given to one card, so a runaway list is refused here. */
const MAX_IDS_PER_CARD = 100
/** The whole set of labels or members of a card. */
export const idArray = (kind: string) => z.array(trelloId(kind)).max(MAX_IDS_PER_CARD)

/**
 * Trello documents id lists as comma-separated strings (docs/platforms/trello.md, "Facts"), so they go as one; an
 * empty array becomes '' which clears the list.
 */
export const commaSeparated = (ids: readonly string[] | undefined): string | undefined => ids?.join(',')
