import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { expect } from 'vitest'
import type { TestStack } from './test-stack.ts'
import { callFails, callOk } from './mcp.ts'
import { TRELLO } from './trello.ts'
import { VERCEL, vercelControl } from './vercel.ts'

/**
 * Calls every tool step of every platform once, over whichever transport the client speaks, as a
 * user whose one Zendesk (acme), Trello and Vercel (personal) accounts are connected, so each
 * `integration` is left to its default except once. Returns the tools called.
 */
export async function callEveryStep(client: Client, stack: TestStack): Promise<Set<string>> {
  const called = new Set<string>()
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    called.add(name)
    return callOk(client, name, args)
  }

  const ticket = await call('zendesk_create_ticket', {
    subject: 'Printer on fire over MCP',
    description: 'Smoke',
  })
  expect(
    await call('zendesk_get_ticket', { integration: 'Ada Admin (acme)', ticket_id: ticket.id }),
  ).toMatchObject({ id: ticket.id, subject: 'Printer on fire over MCP' })
  expect((await call('zendesk_list_tickets', { limit: 2 })).tickets).toHaveLength(2)
  expect(
    (await call('zendesk_search_tickets', { query: 'Printer on fire over MCP' })).tickets.map(
      (t: any) => t.id,
    ),
  ).toContain(ticket.id)
  expect(await call('zendesk_update_ticket', { ticket_id: ticket.id, status: 'pending' })).toMatchObject({
    status: 'pending',
  })
  expect(
    await call('zendesk_api_call', { method: 'GET', endpoint: `/api/v2/tickets/${ticket.id}.json` }),
  ).toMatchObject({ status: 200, body: { ticket: { id: ticket.id } } })
  await call('zendesk_delete_ticket', { ticket_id: ticket.id })
  expect(await callFails(client, 'zendesk_get_ticket', { ticket_id: ticket.id })).toMatchObject({
    code: 'not_found',
    status: 404,
  })

  const { boards } = await call('trello_get_boards')
  expect(boards.map((b: any) => b.id)).toContain(TRELLO.board.id)
  const list = await call('trello_create_list', { name: 'MCP list', board_id: TRELLO.board.id })
  const card = await call('trello_create_card', { list_id: list.id, name: 'MCP card' })
  expect(await call('trello_update_card', { card_id: card.id, desc: 'changed over MCP' })).toMatchObject({
    desc: 'changed over MCP',
  })
  await call('trello_add_comment_to_card', { card_id: card.id, text: 'hello' })
  await call('trello_add_comment', { card_id: card.id, comment: 'legacy hello' })
  const checklist = await call('trello_add_checklist', { card_id: card.id, name: 'Steps', items: ['one'] })
  expect(
    await call('trello_create_checklist_item', { checklist_id: checklist.id, name: 'two' }),
  ).toMatchObject({ name: 'two' })
  expect(await call('trello_get_card', { card_id: card.id })).toMatchObject({
    id: card.id,
    desc: 'changed over MCP',
  })
  expect((await call('trello_get_list_cards', { list_id: list.id })).cards.map((c: any) => c.id)).toEqual([
    card.id,
  ])
  expect(await call('trello_archive_card', { card_id: card.id })).toMatchObject({ closed: true })
  expect(await call('trello_api_call', { method: 'GET', endpoint: `/1/cards/${card.id}` })).toMatchObject({
    status: 200,
    body: { id: card.id, closed: true },
  })

  await vercelControl(stack).rateLimits({ disabled: true })
  const deployment = await call('vercel_create_deployment', { project: VERCEL.personalProject.name })
  expect(
    (await call('vercel_list_deployments', { project: VERCEL.personalProject.name })).deployments.map(
      (d: any) => d.id,
    ),
  ).toContain(deployment.id)
  expect(await call('vercel_get_deployment', { id: deployment.url })).toMatchObject({
    id: deployment.id,
    readyState: 'QUEUED',
  })
  expect(await call('vercel_cancel_deployment', { id: deployment.id })).toMatchObject({
    readyState: 'CANCELED',
  })
  expect(
    await call('vercel_api_call', { method: 'GET', endpoint: `/v13/deployments/${deployment.id}` }),
  ).toMatchObject({ status: 200, body: { id: deployment.id } })
  return called
}
