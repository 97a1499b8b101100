import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN, AGENT, bearer, CUSTOMER, call, startTestSandbox, type TestSandbox } from './test-support.ts'

let sandbox: TestSandbox
let acme: string
let admin: string
let agent: string

beforeAll(async () => {
  sandbox = await startTestSandbox()
  acme = sandbox.base('acme')
  admin = bearer(await sandbox.token('acme', ADMIN))
  agent = bearer(await sandbox.token('acme', AGENT))
})
afterAll(() => sandbox.close())

describe('users', () => {
  it('shows /users/me with the Zendesk user shape', async () => {
    const me = await call(`${acme}/api/v2/users/me.json`, { auth: agent })
    expect(me.status).toBe(200)
    expect(me.body.user).toMatchObject({
      name: 'Alan Agent',
      email: AGENT,
      role: 'agent',
      active: true,
      verified: true,
      url: expect.stringContaining(`${acme}/api/v2/users/`),
    })
    for (const key of [
      'id',
      'created_at',
      'updated_at',
      'time_zone',
      'locale',
      'organization_id',
      'tags',
      'suspended',
      'user_fields',
    ]) {
      expect(me.body.user).toHaveProperty(key)
    }
  })

  it('lists users with a role filter', async () => {
    const all = await call(`${acme}/api/v2/users.json`, { auth: agent })
    expect(all.body.count).toBe(4)
    const endUsers = await call(`${acme}/api/v2/users.json?role=end-user`, { auth: agent })
    expect(endUsers.body.users.map((u: { role: string }) => u.role)).toEqual(['end-user', 'end-user'])
    const staff = await call(`${acme}/api/v2/users.json?role[]=admin&role[]=agent`, { auth: agent })
    expect(staff.body.users.length).toBe(2)
  })

  it('creates (201), shows and updates (200) a user', async () => {
    const created = await call(`${acme}/api/v2/users.json`, {
      auth: agent,
      json: { user: { name: 'Dee Dev', email: 'Dee@Example.test' } },
    })
    expect(created.status).toBe(201)
    expect(created.body.user).toMatchObject({ name: 'Dee Dev', email: 'dee@example.test', role: 'end-user' })
    const id = created.body.user.id
    expect((await call(`${acme}/api/v2/users/${id}`, { auth: agent })).body.user.id).toBe(id)
    const updated = await call(`${acme}/api/v2/users/${id}.json`, {
      method: 'PUT',
      auth: agent,
      json: { user: { phone: '+15551234567', tags: ['vip'] } },
    })
    expect(updated.status).toBe(200)
    expect(updated.body.user).toMatchObject({ phone: '+15551234567', tags: ['vip'] })
  })

  it.each([
    ['a duplicate email', { name: 'Again', email: AGENT }, 'email', 'DuplicateValue'],
    ['a blank name', { name: '', email: 'blank@example.test' }, 'name', 'TooShort'],
    ['a malformed email', { name: 'X', email: 'not-an-email' }, 'email', 'InvalidFormat'],
    ['an unknown role', { name: 'X', role: 'owner' }, 'role', 'InvalidValue'],
  ])('answers 422 for %s', async (_, user, field, error) => {
    const response = await call(`${acme}/api/v2/users`, { auth: admin, json: { user } })
    expect(response.status).toBe(422)
    expect(response.body).toMatchObject({ error: 'RecordInvalid', description: 'Record validation errors' })
    expect(response.body.details[field][0]).toMatchObject({ error })
  })

  it('words a duplicate email as Zendesk does', async () => {
    const response = await call(`${acme}/api/v2/users`, {
      auth: admin,
      json: { user: { name: 'Again', email: AGENT } },
    })
    expect(response.body.details.email[0].description).toBe(
      `Email: ${AGENT} is already being used by another user`,
    )
  })

  it('lets only admins create agents or change roles', async () => {
    const byAgent = await call(`${acme}/api/v2/users`, {
      auth: agent,
      json: { user: { name: 'New Agent', email: 'na@acme.test', role: 'agent' } },
    })
    expect(byAgent.status).toBe(403)
    const byAdmin = await call(`${acme}/api/v2/users`, {
      auth: admin,
      json: { user: { name: 'New Agent', email: 'na@acme.test', role: 'agent' } },
    })
    expect(byAdmin.status).toBe(201)
  })

  it('404s a missing user', async () => {
    const response = await call(`${acme}/api/v2/users/424242`, { auth: agent })
    expect(response.status).toBe(404)
    expect(response.body).toEqual({ error: 'RecordNotFound', description: 'Not found' })
  })
})

describe('organizations', () => {
  it('lists and shows organizations', async () => {
    const list = await call(`${acme}/api/v2/organizations.json`, { auth: agent })
    expect(list.status).toBe(200)
    expect(list.body).toMatchObject({ count: 2, next_page: null, previous_page: null })
    const first = list.body.organizations[0]
    expect(first).toMatchObject({
      name: 'Initech',
      domain_names: ['initech.test'],
      url: `${acme}/api/v2/organizations/${first.id}.json`,
    })
    const shown = await call(`${acme}/api/v2/organizations/${first.id}`, { auth: agent })
    expect(shown.body.organization.id).toBe(first.id)
    expect((await call(`${acme}/api/v2/organizations/1`, { auth: agent })).status).toBe(404)
  })
})

describe('users: show_many and search', () => {
  const idOf = async (email: string) =>
    (await call(`${acme}/api/v2/users/search.json?query=${encodeURIComponent(email)}`, { auth: agent })).body
      .users[0].id as number

  it('shows many users by id, in id order, leaving out unknown ids', async () => {
    const [a, b] = [await idOf(AGENT), await idOf(ADMIN)]
    const many = await call(`${acme}/api/v2/users/show_many.json?ids=${b},999999,${a}`, { auth: agent })
    expect(many.status).toBe(200)
    expect(many.body.users.map((u: { id: number }) => u.id)).toEqual([a, b].sort((x, y) => x - y))
  })

  it('shows many users by external id', async () => {
    const created = await call(`${acme}/api/v2/users.json`, {
      auth: agent,
      json: { user: { name: 'Ext Ernal', email: 'ext@example.test', external_id: 'crm-42' } },
    })
    const many = await call(`${acme}/api/v2/users/show_many.json?external_ids=crm-42,crm-nope`, {
      auth: agent,
    })
    expect(many.body.users.map((u: { id: number }) => u.id)).toEqual([created.body.user.id])
  })

  it('searches users by part of a name or email, any case, and by exact external id', async () => {
    const byName = await call(`${acme}/api/v2/users/search.json?query=alan`, { auth: agent })
    expect(byName.body.users.map((u: { email: string }) => u.email)).toEqual([AGENT])
    expect(byName.body.count).toBe(1)
    const byDomain = await call(`${acme}/api/v2/users/search.json?query=ACME.TEST`, { auth: agent })
    expect(byDomain.body.users.length).toBeGreaterThanOrEqual(3)
    const byExternal = await call(`${acme}/api/v2/users/search.json?external_id=crm-42`, { auth: agent })
    expect(byExternal.body.users.map((u: { email: string }) => u.email)).toEqual(['ext@example.test'])
    expect(
      (await call(`${acme}/api/v2/users/search.json?external_id=crm-4`, { auth: agent })).body.users,
    ).toEqual([])
  })

  it.each([
    ['show_many without ids', 'users/show_many.json'],
    ['show_many with an empty list', 'users/show_many.json?ids=,,'],
    ['search without a query', 'users/search.json'],
    ['search with a blank query', 'users/search.json?query=%20'],
  ])('refuses %s with ParameterMissing', async (_name, path) => {
    const res = await call(`${acme}/api/v2/${path}`, { auth: agent })
    expect(res.status).toBe(400)
    expect(res.body.error).toBe('ParameterMissing')
  })

  it('is for agents: an end user gets 403', async () => {
    const customer = bearer(await sandbox.token('acme', CUSTOMER))
    expect((await call(`${acme}/api/v2/users/search.json?query=alan`, { auth: customer })).status).toBe(403)
    expect((await call(`${acme}/api/v2/users/show_many.json?ids=1`, { auth: customer })).status).toBe(403)
  })
})
