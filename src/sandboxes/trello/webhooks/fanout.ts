import type { Action, Webhook } from '../model.ts'
import { actionJson, boardJson, cardJson, listJson, memberJson, webhookJson } from '../presenters.ts'
import type { TrelloSandbox } from '../sandbox.ts'
import { webhookSignature } from './signature.ts'

/**
 * Which actions reach which webhook: every model an action touches is in `action.modelIds`
 * (its board, card, lists before and after, checklist, label, the member who acted and the
 * member acted upon). A board webhook therefore sees everything on the board, a list webhook
 * its cards, a card webhook the card, a member webhook that member's actions.
 */

/** The watched object as it is right after the action (`model` in the payload, sources: Trello actions and webhooks). */
export function modelJson(sb: TrelloSandbox, webhook: Webhook): Record<string, unknown> | undefined {
  const { store } = sb
  switch (webhook.modelType) {
    case 'board': {
      const board = store.boards.get(webhook.idModel)
      return board && boardJson(board, store)
    }
    case 'card': {
      const card = store.cards.get(webhook.idModel)
      return card && cardJson(card, store)
    }
    case 'list': {
      const list = store.lists.get(webhook.idModel)
      return list && listJson(list)
    }
    case 'member': {
      const member = store.members.get(webhook.idModel)
      return member && memberJson(member, store, { idMember: '', account: false })
    }
  }
}

/** Queues one delivery per matching webhook. Runs synchronously so `model` is a snapshot. */
export function fanOut(sb: TrelloSandbox, action: Action): void {
  const { store } = sb
  const now = sb.now()
  for (const webhook of [...store.webhooks.values()]) {
    if (!webhook.active || !action.modelIds.includes(webhook.idModel)) continue
    const token = store.tokens.get(webhook.token)
    if (!token || (token.expiresAt !== null && token.expiresAt <= now)) {
      // A revoked or expired token takes its webhooks with it (sources: Trello actions and webhooks, T-ARCH).
      store.webhooks.delete(webhook.id)
      continue
    }
    const app = store.apps.get(webhook.key)
    const model = modelJson(sb, webhook)
    if (!app || !model) continue
    const body = JSON.stringify({ action: actionJson(action, store), model, webhook: webhookJson(webhook) })
    sb.deliveries.enqueue({
      webhook_id: webhook.id,
      action_id: action.id,
      action_type: action.type,
      model_id: webhook.idModel,
      callback_url: webhook.callbackURL,
      body,
      signature: webhookSignature(app.secret, body, webhook.callbackURL),
    })
  }
}
