import path from 'node:path'
import {
  ActionSchema,
  CardSchema,
  CheckItemSchema,
  ChecklistSchema,
  LabelSchema,
  NotificationSchema,
  TokenSchema,
  TrelloListSchema,
  WebhookSchema,
} from 'trello.js/models'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { oauth1Authorization } from '../../src/core/connections/oauth1.ts'
import * as Product from '../../src/platforms/trello/schemas.ts'
import { SEED } from '../../src/sandboxes/trello/seed.ts'
import {
  call,
  KEY,
  postForm,
  SECRET,
  signInAndConsent,
  startReceiver,
  startTestSandbox,
  type Call,
  type Receiver,
  type TestSandbox,
} from '../../src/sandboxes/trello/test-support.ts'
import { missingVendorFile, VendorSpec, type VendorOperation } from '../helpers/openapi-contract.ts'
import { trello } from '../../src/platforms/trello/platform.ts'
import { trelloTools } from '../../src/platforms/trello/tools/index.ts'
import { candidateOf, type TrelloAction } from '../../src/platforms/trello/triggers/actions.ts'
import { endpointKey, productEndpoints } from '../helpers/product-endpoints.ts'
import { recordingApiClient } from '../helpers/recording-api.ts'
import {
  Board,
  BoardWithLists,
  CardWithRelations,
  CommentAction,
  Member,
} from '../helpers/trello-js-schemas.ts'

/**
 * Every request the product makes to Trello, answered by the sandbox over real HTTP
 * (docs/sandbox.md, "Contract tests"). A tool step that adds an endpoint adds a row here: the last
 * test fails until it does.
 *
 * Trello's OpenAPI file (trello.json) names each operation and its parameters but declares no
 * response for any of its 324 operations. So the file judges what it can: the operation exists,
 * and every parameter the product sends is one it documents (query parameters by name, body
 * fields as properties of the resource's component schema). Answers are judged by the schemas
 * trello.js generates from Trello's current API description (`trello.js/models`), the ones a real
 * client parses them with.
 */

interface Ctx {
  sandbox: TestSandbox
  token: string
  /** Answers Trello's HEAD check, for webhooks. */
  receiver: Receiver
  get: (path: string, query?: Record<string, string>) => Promise<Call>
  send: (method: 'POST' | 'PUT', path: string, fields: Record<string, unknown>) => Promise<Call>
  /** A fresh card in To Do, made for one row. */
  card: () => Promise<string>
}

interface Endpoint {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  /** As the product writes it; `{name}` stands for a value. */
  path: string
  usedBy: string
  /** The operation in trello.json; `oauth` for the OAuth 1.0a endpoints, which it does not describe. */
  vendor: string | 'oauth'
  /** What the product sends: query parameters (GET) or body fields (POST, PUT). */
  sends: Record<string, unknown>
  drive: (ctx: Ctx, sends: Record<string, unknown>) => Promise<Call>
  /**
   * The schemas the answer must pass (none for the OAuth endpoints, which answer forms or pages):
   * trello.js's, which a real client parses it with, and the product's own (src/platforms/trello/
   * schemas.ts), which names every field a step's user reads and its type. trello.js makes almost
   * every field optional; the product's schema is the one that notices a field left out.
   */
  answer: z.ZodType[]
}

const { board, lists, labels, members } = SEED
const CALLBACK = 'http://127.0.0.1:8765/oauth/callback'

/** The same as Get Card's output declares it (src/platforms/trello/tools/get-card.ts). */
const Named = z.looseObject({ id: z.string(), name: z.string() })
const ProductCardWithRelations = Product.Card.extend({
  checklists: z.array(Product.Checklist),
  members: z.array(z.looseObject({ id: z.string(), fullName: z.string(), username: z.string() })),
  list: Named,
  board: Named,
})

/** An action in a list, its creator with the avatar fields Trello answers null when unset (as CommentAction's). */
const ListedAction = ActionSchema.extend({ memberCreator: CommentAction.shape.memberCreator })
/**
 * trello.js's generated model types a notification's `data` as a string; Trello answers an object
 * with the board, card and text stubs (docs/sandbox.md, "Actions, notifications and webhooks").
 */
const Notification = NotificationSchema.extend({ data: z.record(z.string(), z.unknown()) })

const ENDPOINTS: Endpoint[] = [
  {
    method: 'GET',
    path: '/1/members/me',
    usedBy: 'identify (platform.ts); the member New Board watches (webhooks.ts)',
    vendor: '/members/{idMember}',
    sends: { fields: 'id,username,fullName' },
    drive: ({ get }, q) => get('/1/members/me', q as Record<string, string>),
    answer: [Member, z.looseObject({ id: z.string(), username: z.string(), fullName: z.string() })],
  },
  {
    method: 'GET',
    path: '/1/members/me/boards',
    usedBy: 'Get Boards',
    vendor: '/members/{idMember}/boards',
    sends: { filter: 'open', lists: 'open' },
    drive: ({ get }, q) => get('/1/members/me/boards', q as Record<string, string>),
    answer: [z.array(BoardWithLists).min(1), z.array(Product.Board.extend({ lists: z.array(Product.List) }))],
  },
  {
    method: 'GET',
    path: '/1/lists/{idList}/cards',
    usedBy: 'Get List Cards',
    vendor: '/lists/{idList}/cards',
    sends: { filter: 'open' },
    drive: ({ get }, q) => get(`/1/lists/${lists.todo.id}/cards`, q as Record<string, string>),
    answer: [z.array(CardSchema).min(1), z.array(Product.Card)],
  },
  {
    method: 'GET',
    path: '/1/cards/{idCard}',
    usedBy: 'Get Card',
    vendor: '/cards/{idCard}',
    sends: {
      checklists: 'all',
      members: 'true',
      member_fields: 'fullName,username',
      list: 'true',
      list_fields: 'name',
      board: 'true',
      board_fields: 'name',
    },
    drive: async ({ get, send, card }, q) => {
      const id = await card()
      await send('PUT', `/1/cards/${id}`, { idMembers: members.ada.id })
      const checklist = await send('POST', '/1/checklists', { idCard: id, name: 'Steps' })
      await send('POST', `/1/checklists/${checklist.body.id}/checkItems`, {
        name: 'One',
        due: '2025-04-01T09:30:00.000Z',
      })
      return get(`/1/cards/${id}`, q as Record<string, string>)
    },
    answer: [CardWithRelations, ProductCardWithRelations],
  },
  {
    method: 'POST',
    path: '/1/cards',
    usedBy: 'Create Card',
    vendor: '/cards',
    sends: {
      idList: lists.todo.id,
      name: 'Contract card',
      desc: 'Made by the contract test',
      pos: 'top',
      due: '2025-03-01T17:00:00.000Z',
      idLabels: `${labels.bug.id},${labels.docs.id}`,
    },
    drive: ({ send }, body) => send('POST', '/1/cards', body),
    answer: [CardSchema, Product.Card],
  },
  {
    method: 'PUT',
    path: '/1/cards/{idCard}',
    usedBy: 'Update Card, Archive Card',
    vendor: '/cards/{idCard}',
    sends: {
      name: 'Renamed',
      desc: 'Changed',
      due: null,
      dueComplete: true,
      closed: true,
      idLabels: labels.bug.id,
      idMembers: members.ada.id,
      idList: lists.doing.id,
      idBoard: board.id,
      pos: 'bottom',
    },
    drive: async ({ send, card }, body) => send('PUT', `/1/cards/${await card()}`, body),
    answer: [CardSchema, Product.Card],
  },
  {
    method: 'POST',
    path: '/1/lists',
    usedBy: 'Create List',
    vendor: '/lists',
    sends: { name: 'Contract list', idBoard: board.id, pos: 'bottom' },
    drive: ({ send }, body) => send('POST', '/1/lists', body),
    answer: [TrelloListSchema, Product.List],
  },
  {
    method: 'POST',
    path: '/1/cards/{idCard}/actions/comments',
    usedBy: 'Add Comment to Card, Add Comment (legacy)',
    vendor: '/cards/{idCard}/actions/comments',
    sends: { text: 'A comment' },
    drive: async ({ send, card }, body) => send('POST', `/1/cards/${await card()}/actions/comments`, body),
    answer: [CommentAction, Product.CommentAction],
  },
  {
    method: 'POST',
    path: '/1/checklists',
    usedBy: 'Add Checklist',
    vendor: '/checklists',
    sends: { idCard: SEED.cards.login.id, name: 'Checklist', pos: 'bottom' },
    drive: ({ send }, body) => send('POST', '/1/checklists', body),
    answer: [ChecklistSchema, Product.Checklist],
  },
  {
    method: 'POST',
    path: '/1/checklists/{idChecklist}/checkItems',
    usedBy: 'Add Checklist, Create a Checklist Item',
    vendor: '/checklists/{idChecklist}/checkItems',
    sends: { name: 'Item', pos: 'bottom', checked: true, due: '2025-04-01T09:30:00.000Z' },
    drive: async ({ send, card }, body) => {
      const checklist = await send('POST', '/1/checklists', { idCard: await card(), name: 'Steps' })
      return send('POST', `/1/checklists/${checklist.body.id}/checkItems`, body)
    },
    answer: [CheckItemSchema, Product.CheckItem],
  },
  {
    method: 'GET',
    path: '/1/lists/{idList}',
    usedBy: "options: labels of a list's board (options.ts)",
    vendor: '/lists/{idList}',
    sends: {},
    drive: ({ get }, q) => get(`/1/lists/${lists.todo.id}`, q as Record<string, string>),
    answer: [TrelloListSchema, Product.List],
  },
  {
    method: 'GET',
    path: '/1/boards/{board}/lists',
    usedBy: "options: lists of a card's board (options.ts)",
    vendor: '/boards/{idBoard}/lists',
    sends: { filter: 'open' },
    drive: ({ get }, q) => get(`/1/boards/${board.id}/lists`, q as Record<string, string>),
    answer: [z.array(TrelloListSchema).min(1), z.array(Product.List)],
  },
  {
    method: 'GET',
    path: '/1/boards/{board}/cards',
    usedBy: 'options: cards (options.ts)',
    vendor: '/boards/{idBoard}/cards',
    sends: { filter: 'open' },
    drive: ({ get }, q) => get(`/1/boards/${board.id}/cards`, q as Record<string, string>),
    answer: [z.array(CardSchema).min(1), z.array(Product.Card)],
  },
  {
    method: 'GET',
    path: '/1/boards/{board}/labels',
    usedBy: 'options: labels (options.ts)',
    vendor: '/boards/{idBoard}/labels',
    sends: { limit: 1000 },
    drive: ({ get }, q) => get(`/1/boards/${board.id}/labels`, q as Record<string, string>),
    answer: [z.array(LabelSchema).min(1), z.array(Product.Label)],
  },
  {
    method: 'GET',
    path: '/1/boards/{board}/members',
    usedBy: 'options: members (options.ts)',
    vendor: '/boards/{idBoard}/members',
    sends: {},
    drive: ({ get }, q) => get(`/1/boards/${board.id}/members`, q as Record<string, string>),
    answer: [
      z.array(Member).min(1),
      z.array(z.looseObject({ id: z.string(), fullName: z.string(), username: z.string() })),
    ],
  },
  {
    method: 'GET',
    path: '/1/boards/{board.id}',
    usedBy: 'options: checklists (options.ts); Card Due Date Reminder (triggers/due-reminder.ts)',
    vendor: '/boards/{idBoard}',
    // The options ask for cards and checklists; the reminder for the board's name, its lists and cards (`visible`).
    sends: { cards: 'open', checklists: 'all', fields: 'name,shortLink', lists: 'open', list_fields: 'name' },
    drive: ({ get }, q) => get(`/1/boards/${board.id}`, q as Record<string, string>),
    answer: [
      Board.extend({
        cards: z.array(CardSchema),
        checklists: z.array(ChecklistSchema).min(1),
        lists: z.array(TrelloListSchema).min(1),
      }),
      z.looseObject({
        name: z.string(),
        shortLink: z.string(),
        cards: z.array(Product.Card),
        checklists: z.array(Product.Checklist),
        lists: z.array(z.looseObject({ id: z.string(), name: z.string() })),
      }),
    ],
  },
  {
    method: 'GET',
    path: '/1/boards/{board}/actions',
    usedBy: 'triggers: recent events for a test (triggers/board-trigger.ts)',
    vendor: '/boards/{idBoard}/actions',
    sends: { filter: 'commentCard,addLabelToCard', limit: 100 },
    drive: ({ get }, q) => get(`/1/boards/${board.id}/actions`, q as Record<string, string>),
    answer: [
      z.array(ListedAction).min(1),
      z.array(
        z.looseObject({
          id: z.string(),
          type: z.string(),
          date: z.string(),
          idMemberCreator: z.string(),
          data: z.looseObject({}),
        }),
      ),
    ],
  },
  {
    method: 'GET',
    path: '/1/members/me/actions',
    usedBy: 'New Board: recent events for a test (triggers/boards.ts)',
    vendor: '/members/{idMember}/actions',
    sends: { filter: 'createBoard,copyBoard', limit: 25 },
    drive: ({ get }, q) => get('/1/members/me/actions', q as Record<string, string>),
    answer: [
      z.array(ListedAction).min(1),
      z.array(
        z.looseObject({
          id: z.string(),
          type: z.string(),
          date: z.string(),
          idMemberCreator: z.string(),
          data: z.looseObject({}),
        }),
      ),
    ],
  },
  {
    method: 'GET',
    path: '/1/actions/{idAction}',
    usedBy: 'webhooks: confirming a delivery no secret can verify (webhooks.ts)',
    vendor: '/actions/{idAction}',
    sends: { fields: 'type,idMemberCreator,data,date', memberCreator: 'true' },
    drive: async ({ get, send, card }, q) => {
      const comment = await send('POST', `/1/cards/${await card()}/actions/comments`, { text: 'confirm me' })
      return get(`/1/actions/${comment.body.id}`, q as Record<string, string>)
    },
    answer: [
      ActionSchema,
      z.looseObject({
        id: z.string(),
        type: z.string(),
        date: z.string(),
        idMemberCreator: z.string(),
        data: z.looseObject({}),
      }),
    ],
  },
  {
    method: 'GET',
    path: '/1/members/me/notifications',
    usedBy: 'New Notification (triggers/notifications.ts)',
    vendor: '/members/{idMember}/notifications',
    sends: {
      limit: 100,
      since: SEED.comment.id,
      before: 'ffffffffffffffffffffffff',
      filter: 'mentionedOnCard,addedToCard',
    },
    drive: async ({ sandbox, get }, q) => {
      await sandbox.act('grace', 'POST', `/1/cards/${SEED.cards.api.id}/actions/comments`, {
        text: '@ada notified',
      })
      return get('/1/members/me/notifications', q as Record<string, string>)
    },
    answer: [
      z.array(Notification).min(1),
      z.array(z.looseObject({ id: z.string(), type: z.string(), date: z.string(), data: z.looseObject({}) })),
    ],
  },
  {
    method: 'POST',
    path: '/1/webhooks',
    usedBy: 'webhooks: subscribe (webhooks.ts)',
    vendor: '/webhooks',
    sends: {
      callbackURL: "replaced by the receiver's address",
      idModel: board.id,
      description: 'Switchyard',
    },
    drive: ({ send, receiver }, body) =>
      send('POST', '/1/webhooks', { ...body, callbackURL: `${receiver.url}/post` }),
    answer: [
      WebhookSchema,
      z.looseObject({ id: z.string(), idModel: z.string(), callbackURL: z.string(), active: z.boolean() }),
    ],
  },
  {
    method: 'GET',
    path: '/1/webhooks/{idWebhook}',
    usedBy: 'webhooks: exists (webhooks.ts)',
    vendor: '/webhooks/{idWebhook}',
    sends: {},
    drive: async ({ get, send, receiver }, q) => {
      const made = await send('POST', '/1/webhooks', {
        callbackURL: `${receiver.url}/get`,
        idModel: board.id,
      })
      return get(`/1/webhooks/${made.body.id}`, q as Record<string, string>)
    },
    answer: [
      WebhookSchema,
      z.looseObject({ id: z.string(), idModel: z.string(), callbackURL: z.string(), active: z.boolean() }),
    ],
  },
  {
    method: 'DELETE',
    path: '/1/webhooks/{idWebhook}',
    usedBy: 'webhooks: unsubscribe (webhooks.ts)',
    vendor: '/webhooks/{idWebhook}',
    sends: {},
    drive: async ({ sandbox, token, send, receiver }) => {
      const made = await send('POST', '/1/webhooks', {
        callbackURL: `${receiver.url}/delete`,
        idModel: board.id,
      })
      return sandbox.api(`/1/webhooks/${made.body.id}`, token, { method: 'DELETE' })
    },
    answer: [],
  },
  {
    method: 'GET',
    path: '/1/members/me/tokens',
    usedBy: 'webhooks: finding its own webhook on "already exists" (webhooks.ts)',
    vendor: '/members/{idMember}/tokens',
    sends: { webhooks: 'true' },
    drive: ({ get }, q) => get('/1/members/me/tokens', q as Record<string, string>),
    answer: [
      z.array(TokenSchema.extend({ webhooks: z.array(WebhookSchema) })).min(1),
      z.array(
        z.looseObject({
          id: z.string(),
          webhooks: z.array(z.looseObject({ id: z.string(), idModel: z.string(), callbackURL: z.string() })),
        }),
      ),
    ],
  },
  {
    method: 'POST',
    path: '/1/OAuthGetRequestToken',
    usedBy: 'connect: OAuth 1.0a step 1 (core/connections/oauth1-flow.ts)',
    vendor: 'oauth',
    sends: {},
    drive: ({ sandbox }) => signedPost(`${sandbox.url}/1/OAuthGetRequestToken`, { oauth_callback: CALLBACK }),
    answer: [],
  },
  {
    method: 'GET',
    path: '/1/OAuthAuthorizeToken',
    usedBy: 'connect: the consent page (platform.ts authorizeUrl)',
    vendor: 'oauth',
    sends: {},
    drive: async ({ sandbox }) => {
      const request = form(
        await signedPost(`${sandbox.url}/1/OAuthGetRequestToken`, { oauth_callback: CALLBACK }),
      )
      return call(
        `${sandbox.url}/1/OAuthAuthorizeToken?${new URLSearchParams({ oauth_token: request.get('oauth_token')!, name: 'Switchyard', scope: 'read,write', expiration: 'never' })}`,
      )
    },
    answer: [],
  },
  {
    method: 'POST',
    path: '/1/OAuthGetAccessToken',
    usedBy: 'connect: OAuth 1.0a step 3 (core/connections/oauth1-flow.ts)',
    vendor: 'oauth',
    sends: {},
    drive: async ({ sandbox }) => {
      const request = form(
        await signedPost(`${sandbox.url}/1/OAuthGetRequestToken`, { oauth_callback: CALLBACK }),
      )
      const page = `${sandbox.url}/1/OAuthAuthorizeToken?${new URLSearchParams({ oauth_token: request.get('oauth_token')!, name: 'Switchyard', scope: 'read,write', expiration: 'never' })}`
      const consent = await signInAndConsent(page)
      const back = new URL(
        (await postForm(consent.action, { ...consent.fields, decision: 'allow' })).headers.get('location')!,
      )
      return signedPost(
        `${sandbox.url}/1/OAuthGetAccessToken`,
        { oauth_verifier: back.searchParams.get('oauth_verifier')! },
        { token: request.get('oauth_token')!, tokenSecret: request.get('oauth_token_secret')! },
      )
    },
    answer: [],
  },
]

/**
 * Parameters the product sends that trello.json does not list, each documented by Trello since the
 * file was scraped (docs/sandbox.md, Trello "Endpoints": `dueComplete` on cards, `due` on check
 * items). The list is exact: a parameter that appears in the file, or that the product stops
 * sending, fails the test until its entry goes.
 */
const NEWER_THAN_VENDOR_FILE: Record<string, string[]> = {
  'PUT /cards/{idCard}': ['dueComplete'],
  'POST /checklists/{idChecklist}/checkItems': ['due'],
  // trello.js `GetMemberTokens` (docs/triggers/trello.md, "Facts").
  'GET /members/{idMember}/tokens': ['webhooks'],
}

const skip = missingVendorFile('trello.json')
if (skip) console.warn(`Trello contract tests skipped: ${skip}`)

describe.skipIf(skip)(
  `Trello sandbox answers what the product asks as Trello documents it${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    let spec: VendorSpec
    let ctx: Ctx

    beforeAll(async () => {
      spec = new VendorSpec('trello.json')
      const sandbox = await startTestSandbox()
      const token = await sandbox.token('ada')
      const receiver = await startReceiver()
      const get: Ctx['get'] = (p, query = {}) => sandbox.api(`${p}?${new URLSearchParams(query)}`, token)
      // The product sends bodies as JSON (core/http/api-client.ts).
      const send: Ctx['send'] = (method, p, fields) => sandbox.api(p, token, { method, json: fields })
      ctx = {
        sandbox,
        token,
        get,
        send,
        receiver,
        card: async () => {
          const created = await send('POST', '/1/cards', { idList: lists.todo.id, name: 'Fixture' })
          expect(created.status).toBe(200)
          return created.body.id as string
        },
      }
    })
    afterAll(async () => {
      await ctx?.receiver.close()
      await ctx?.sandbox.close()
    })

    it.each(ENDPOINTS.map((e) => [`${e.method} ${e.path} (${e.usedBy})`, e] as const))(
      '%s',
      async (_name, endpoint) => {
        const answer = await endpoint.drive(ctx, endpoint.sends)
        if (endpoint.vendor === 'oauth') return checkOAuthAnswer(endpoint, answer)

        const op = spec.operation(endpoint.method, endpoint.vendor)
        expect(op, `${endpoint.method} ${endpoint.vendor} is not in trello.json`).toBeDefined()
        expect(
          Object.keys(op!.responses),
          'trello.json declares responses now: validate against them',
        ).toEqual([])
        const key = `${endpoint.method} ${endpoint.vendor}`
        expect(undocumented(spec, op!, Object.keys(endpoint.sends))).toEqual(
          NEWER_THAN_VENDOR_FILE[key] ?? [],
        )

        expect(answer.status).toBe(200)
        const issues = endpoint.answer.flatMap((schema) => {
          const parsed = schema.safeParse(answer.body)
          return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)
        })
        expect(issues).toEqual([])
      },
    )

    it('sends, in each row, exactly the parameters the steps and identify send', async () => {
      const { api, sent } = recordingApiClient(
        trello,
        ctx.sandbox.url,
        trello.auth.pasted!.headers({ key: KEY, token: ctx.token }),
      )
      const ran = new Set<string>()
      const step = (id: string, input: Record<string, unknown>) => {
        ran.add(id)
        const tool = trelloTools.find((t) => t.id === id)!
        return tool.run(
          {
            api,
            integration: { id: 'int_contract', accountName: 'Ada', fields: {} },
            withPastedCredentials: () => api,
          },
          tool.input.parse(input),
        )
      }
      const card = await ctx.card()
      await trello.identify(api, {}, {})
      await step('trello.get_boards', { filter: 'all' })
      await step('trello.get_list_cards', { list_id: lists.todo.id })
      await step('trello.get_card', { card_id: card })
      await step('trello.create_card', {
        list_id: lists.todo.id,
        name: 'N',
        desc: 'D',
        pos: 'top',
        due: '2025-03-01T17:00:00Z',
        label_ids: [labels.bug.id],
      })
      await step('trello.update_card', {
        card_id: card,
        name: 'N',
        desc: 'D',
        due: null,
        due_complete: true,
        closed: false,
        label_ids: [],
        member_ids: [members.ada.id],
        list_id: lists.doing.id,
        board_id: board.id,
        pos: 'bottom',
      })
      await step('trello.archive_card', { card_id: card })
      await step('trello.create_list', { name: 'L', board_id: board.id, pos: 'bottom' })
      await step('trello.add_comment_to_card', { card_id: card, text: 'T' })
      await step('trello.add_comment', { card_id: card, comment: 'T' })
      const checklist = (await step('trello.add_checklist', {
        card_id: card,
        name: 'C',
        pos: 'top',
        items: ['a'],
      })) as { id: string }
      await step('trello.create_checklist_item', {
        checklist_id: checklist.id,
        name: 'I',
        pos: 'top',
        checked: true,
        due: '2025-04-01T09:30:00Z',
      })

      // And every options source, with its dependencies chosen (docs/tool-options.md).
      const chosen: Record<string, string> = { card_id: card, list_id: lists.todo.id }
      for (const tool of trelloTools) {
        for (const source of Object.values(tool.options ?? {})) {
          const depends = Object.fromEntries((source.dependsOn ?? []).map((name) => [name, chosen[name]!]))
          await source.list(
            {
              api,
              integration: { id: 'int_contract', accountName: 'Ada', fields: {} },
              withPastedCredentials: () => api,
            },
            { q: '', depends },
          )
        }
      }

      // And every trigger: the webhook facet's calls, each board trigger's recent events, both polls.
      const tctx = {
        api,
        integration: { id: 'int_contract', accountName: 'Ada', fields: {} },
        withPastedCredentials: () => api,
      }
      const facet = trello.webhooks!
      const hook = {
        modelKey: board.id,
        callbackUrl: `${ctx.receiver.url}/triggers`,
        description: 'Switchyard',
      }
      const made = await facet.subscribe!(tctx, hook)
      expect(await facet.subscribe!(tctx, hook)).toEqual(made) // "already exists": adopted
      const member = await facet.subscribe!(tctx, { ...hook, modelKey: 'me' })
      expect(await facet.exists!(tctx, made.remoteId)).toBe(true)
      const [action] = (await ctx.get(`/1/boards/${board.id}/actions`, { filter: 'commentCard', limit: '1' }))
        .body as TrelloAction[]
      // Confirming reads the action back and builds the event from what Trello answered (webhooks.ts).
      const confirmed = await facet.confirm!(tctx, candidateOf(action!))
      expect(confirmed?.dedupeKey).toBe(action!.id)
      for (const t of trello.triggers) {
        const config = t.config.parse(
          t.id === 'trello.new_board' || t.id === 'trello.new_notification' ? {} : { board_ids: [board.id] },
        )
        await t.recent?.(tctx, config)
        if (!t.poll) continue
        const first = await t.poll(tctx, config, null, Date.now())
        await t.poll(tctx, config, first.cursor, Date.now())
      }
      // A full page of new notifications makes the poll read the next one (`before`); a type filter is sent as `filter`.
      const notifications = trello.triggers.find((t) => t.id === 'trello.new_notification')!
      const start = await notifications.poll!(tctx, {}, null, Date.now())
      for (let i = 0; i < 100; i++)
        await ctx.sandbox.act('grace', 'POST', `/1/cards/${SEED.cards.api.id}/actions/comments`, {
          text: `@ada ${i}`,
        })
      expect(
        (await notifications.poll!(tctx, { types: ['mentionedOnCard'] }, start.cursor, Date.now())).events,
      ).toHaveLength(100)
      for (const id of [made.remoteId, member.remoteId, made.remoteId]) await facet.unsubscribe!(tctx, id) // the second delete of a gone hook is fine

      // Every pre-built step runs here (the API Call step sends what its caller asks).
      expect([...ran].sort()).toEqual(
        trelloTools
          .map((t) => t.id)
          .filter((id) => !id.endsWith('.api_call'))
          .sort(),
      )

      const byEndpoint = new Map<string, Set<string>>()
      for (const r of sent) {
        const key = endpointKey(r.method, r.path.replace(/\/[0-9a-f]{24}(?=\/|$)/g, '/{}'))
        byEndpoint.set(key, new Set([...(byEndpoint.get(key) ?? []), ...r.params]))
      }
      const table = ENDPOINTS.filter((e) => e.vendor !== 'oauth').map((e) => [
        endpointKey(e.method, e.path),
        Object.keys(e.sends).sort(),
      ])
      expect(table).toEqual(table.map(([key]) => [key, [...(byEndpoint.get(key as string) ?? [])].sort()]))
      expect([...byEndpoint.keys()].sort()).toEqual(table.map(([key]) => key).sort())
    })

    it('has a row for every endpoint the product names', () => {
      const rows = new Set(ENDPOINTS.map((e) => endpointKey(e.method, e.path)))
      const named = productEndpoints(path.resolve(import.meta.dirname, '../../src/platforms/trello'))
      expect(named.length).toBeGreaterThan(5)
      expect(named.filter((e) => !rows.has(e))).toEqual([])
      expect([...rows].filter((r) => !named.includes(r))).toEqual([])
    })
  },
)

/** Parameters the operation does not document: query parameters for GET, component properties for writes. */
function undocumented(spec: VendorSpec, op: VendorOperation, sent: string[]): string[] {
  if (op.method === 'GET') {
    const names = new Set(op.parameters.filter((p) => p.in === 'query').map((p) => p.name))
    return sent.filter((n) => !names.has(n))
  }
  // trello.json gives write bodies as one `body` parameter; their fields are the properties of the
  // component named after the path without its ids (`/checklists/{id}/checkItems` → checklists_checkItems).
  const component = op.path
    .split('/')
    .filter((s) => s && !s.startsWith('{'))
    .join('_')
  const properties = spec.schema(component)?.properties
  expect(properties, `trello.json has no component ${component}`).toBeDefined()
  return sent.filter((n) => !(n in properties))
}

/**
 * The OAuth 1.0a endpoints are outside trello.json; they answer as RFC 5849 §2 says: a form-encoded
 * body with the token and its secret (and `oauth_callback_confirmed=true` for a request token), or
 * the consent page a person sees.
 */
function checkOAuthAnswer(endpoint: Endpoint, answer: Call) {
  expect(answer.status).toBe(200)
  if (endpoint.method === 'GET') {
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/)
    return
  }
  expect(answer.headers.get('content-type')).toBe('application/x-www-form-urlencoded')
  const values = form(answer)
  expect(values.get('oauth_token')).toMatch(/^[0-9a-f]{32,}$/)
  expect(values.get('oauth_token_secret')).toMatch(/^[0-9a-f]{32,}$/)
  if (endpoint.path.endsWith('RequestToken')) expect(values.get('oauth_callback_confirmed')).toBe('true')
}

function form(answer: Call): URLSearchParams {
  return new URLSearchParams(answer.text)
}

/** A POST signed as the product signs it (core/connections/oauth1.ts), with the seeded app. */
function signedPost(
  url: string,
  extra: Record<string, string>,
  token: { token?: string; tokenSecret?: string } = {},
): Promise<Call> {
  const authorization = oauth1Authorization(
    'POST',
    url,
    { consumerKey: KEY, consumerSecret: SECRET, ...token },
    { extra },
  )
  return call(url, { method: 'POST', headers: { authorization } })
}
