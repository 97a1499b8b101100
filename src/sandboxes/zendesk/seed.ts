import type { Account, Ticket, User } from './model.ts'
import type { SandboxStore } from './state.ts'
import { apiVia, createTicket, updateTicket } from './ticket-write.ts'

/**
 * Seed data (documented in docs/sandbox.md). Timestamps are fixed so search and sort tests
 * can name exact dates; ids are deterministic because the store's counters start fresh.
 */

export const SEED_PASSWORD = 'sandbox'
export const SEED_CLIENT = {
  identifier: 'switchyard',
  secret: 'switchyard-sandbox-secret',
  name: 'Switchyard',
} as const

const at = (iso: string) => Date.parse(iso)

export function seedStore(store: SandboxStore): void {
  store.addClient({
    identifier: SEED_CLIENT.identifier,
    name: SEED_CLIENT.name,
    secret: SEED_CLIENT.secret,
    kind: 'confidential',
    // Emulates a Zendesk global OAuth client whose redirect URIs are any loopback URI.
    redirect: { kind: 'loopback' },
    subdomain: null,
  })
  seedAcme(store)
  seedGlobex(store)
}

function seedAcme(store: SandboxStore): void {
  const created = at('2023-06-01T09:00:00Z')
  const acme = store.createAccount('acme', 'enterprise', created)
  const initech = store.addOrganization(
    acme,
    { name: 'Initech', domainNames: ['initech.test'], tags: ['customer'] },
    created,
  )
  const umbrella = store.addOrganization(
    acme,
    { name: 'Umbrella Corp', domainNames: ['umbrella.test'], tags: ['customer', 'vip'] },
    created,
  )
  const admin = store.addUser(
    acme,
    { name: 'Ada Admin', email: 'admin@acme.test', role: 'admin', password: SEED_PASSWORD },
    created,
  )
  const agent = store.addUser(
    acme,
    { name: 'Alan Agent', email: 'agent@acme.test', role: 'agent', password: SEED_PASSWORD },
    created,
  )
  const carla = store.addUser(
    acme,
    {
      name: 'Carla Customer',
      email: 'customer@acme.test',
      role: 'end-user',
      password: SEED_PASSWORD,
      organizationId: initech.id,
    },
    created,
  )
  const erin = store.addUser(
    acme,
    {
      name: 'Erin Enduser',
      email: 'erin@umbrella.test',
      role: 'end-user',
      password: SEED_PASSWORD,
      organizationId: umbrella.id,
    },
    created,
  )

  const ticket = (fields: Record<string, unknown>, actor: User, iso: string): Ticket => {
    const result = createTicket(store, acme, fields, { user: actor, via: apiVia() }, at(iso))
    if (!result.ok) throw new Error(`seed ticket failed: ${JSON.stringify(result.errors.details)}`)
    return result.ticket
  }
  const note = (account: Account, t: Ticket, fields: Record<string, unknown>, actor: User, iso: string) => {
    const result = updateTicket(store, account, t, fields, { user: actor, via: apiVia() }, at(iso))
    if (!result.ok) throw new Error('seed update failed')
  }

  // 1: urgent open incident with a public reply and an internal note.
  const printer = ticket(
    {
      subject: 'Printer on fire',
      comment: { body: 'The printer in room 4 is on fire. The smoke is very colorful.' },
      priority: 'urgent',
      type: 'incident',
      requester_id: carla.id,
      assignee_id: agent.id,
      tags: ['printer', 'hardware', 'fire'],
    },
    carla,
    '2024-01-10T09:00:00Z',
  )
  note(
    acme,
    printer,
    { comment: { body: 'Called facilities; extinguisher on the way.', public: false } },
    agent,
    '2024-01-10T09:30:00Z',
  )
  note(
    acme,
    printer,
    { comment: { body: 'Help is on the way. Please leave the room.' } },
    agent,
    '2024-01-10T10:00:00Z',
  )

  // 2: new, unassigned question.
  ticket(
    {
      subject: 'Cannot log in to the portal',
      comment: { body: 'I reset my password twice and still get an error page.' },
      priority: 'normal',
      type: 'question',
      requester_id: carla.id,
      tags: ['login', 'portal'],
    },
    carla,
    '2024-02-01T12:00:00Z',
  )

  // 3: pending high-priority problem.
  const invoice = ticket(
    {
      subject: 'Invoice shows the wrong amount',
      comment: { body: 'Our March invoice charges us twice for the same seats.' },
      priority: 'high',
      type: 'problem',
      requester_id: erin.id,
      assignee_id: admin.id,
      tags: ['billing'],
    },
    erin,
    '2024-02-15T08:30:00Z',
  )
  note(
    acme,
    invoice,
    { status: 'pending', comment: { body: 'Could you send the invoice number?' } },
    admin,
    '2024-02-15T09:00:00Z',
  )

  // 4: solved low-priority task with a due date.
  const laptop = ticket(
    {
      subject: 'Request for a new laptop',
      comment: { body: 'My laptop battery no longer holds a charge.' },
      priority: 'low',
      type: 'task',
      requester_id: erin.id,
      assignee_id: agent.id,
      due_at: '2024-03-08T17:00:00Z',
      tags: ['hardware', 'laptop'],
    },
    erin,
    '2024-03-01T10:00:00Z',
  )
  note(
    acme,
    laptop,
    { status: 'solved', comment: { body: 'Your new laptop is at the front desk.' } },
    agent,
    '2024-03-05T15:00:00Z',
  )

  // 5: closed shipping question, no priority or type.
  ticket(
    {
      subject: 'Where is my order?',
      comment: { body: 'Order 1234 has not arrived yet.' },
      requester_id: carla.id,
      assignee_id: agent.id,
      status: 'closed',
      tags: ['shipping'],
    },
    carla,
    '2023-12-01T08:00:00Z',
  )

  // 6: on-hold feature request.
  ticket(
    {
      subject: 'Feature suggestion: dark mode',
      comment: { body: 'Please add a dark mode to the customer portal.' },
      priority: 'normal',
      type: 'question',
      requester_id: carla.id,
      assignee_id: admin.id,
      status: 'hold',
      tags: ['feature-request', 'portal'],
    },
    carla,
    '2024-03-20T14:00:00Z',
  )
}

function seedGlobex(store: SandboxStore): void {
  const created = at('2023-06-01T09:00:00Z')
  const globex = store.createAccount('globex', 'team', created)
  const admin = store.addUser(
    globex,
    { name: 'Gina Globex', email: 'admin@globex.test', role: 'admin', password: SEED_PASSWORD },
    created,
  )
  const result = createTicket(
    store,
    globex,
    { subject: 'Welcome to Globex support', comment: { body: 'First ticket of the Globex account.' } },
    { user: admin, via: apiVia() },
    at('2024-01-05T09:00:00Z'),
  )
  if (!result.ok) throw new Error('seed ticket failed')
}
