import { randomBytes } from 'node:crypto'
import { signature } from '../../src/platforms/trello/webhooks.ts'
import { SEED } from '../../src/sandboxes/trello/seed.ts'
import { connectTrelloOAuth } from '../../test/helpers/connect-trello.ts'
import { call, skippedAgentSubscription, type DeliveryFactory } from './define.ts'

/**
 * Trello's New Card: activation registers a webhook at the sandbox for the board; each delivery is a
 * createCard action signed with the app's secret, base64 HMAC-SHA1 over body and callback address.
 */
export const trelloDeliveries: DeliveryFactory = {
  platform: 'trello',
  async setUp(service, sandboxUrl) {
    const integration = (await connectTrelloOAuth(service)).integrationId!
    const boards = await call(service, 'POST', '/v1/tools/trello.get_boards/run', { integration, input: {} })
    const target = boards.output.boards[0]
    const sub = await skippedAgentSubscription(service, {
      step: { tool: 'trello.get_boards', input: {} },
      integration,
      trigger: 'trello.new_card',
      config: { board_ids: [target.id] },
      mapping: { title: '{{ card.name }}' },
    })
    const hooks = (await (await fetch(`${sandboxUrl}/trello/_control/webhooks`)).json()) as {
      webhooks: Array<{ callbackURL: string; idModel: string }>
    }
    const hook = hooks.webhooks.find((w) => w.idModel === target.id && w.callbackURL.startsWith(service.url))
    if (!hook) throw new Error('the Trello subscription made no webhook at the sandbox')
    const address = hook.callbackURL
    const memberId = SEED.members.grace.id
    return {
      subscriptionId: sub.id,
      address,
      make() {
        const id = randomBytes(12).toString('hex')
        const card = randomBytes(12).toString('hex')
        const body = JSON.stringify({
          action: {
            id,
            type: 'createCard',
            date: new Date().toISOString(),
            idMemberCreator: memberId,
            data: {
              board: { id: target.id, name: 'Bench', shortLink: 'bEnChBoA' },
              list: { id: target.lists[0].id, name: 'To do' },
              card: { id: card, name: `card ${id}`, idShort: 1, shortLink: 'cArDlInK' },
            },
            memberCreator: { id: memberId, username: 'grace', fullName: 'Grace Hopper' },
          },
          model: { id: target.id, name: 'Bench' },
        })
        return {
          id,
          body,
          headers: {
            'x-trello-webhook': signature(SEED.app.secret, Buffer.from(body), address).toString('base64'),
          },
        }
      },
      eventIdOf: (event) => event?.action?.id,
    }
  },
}
