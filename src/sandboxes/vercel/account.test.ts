import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SEED } from './index.ts'
import { call, startTestSandbox, type TestSandbox } from './test-support.ts'

let sandbox: TestSandbox
let token: string
let teamToken: string
let outsider: string

beforeAll(async () => {
  sandbox = await startTestSandbox()
  token = await sandbox.token()
  teamToken = await sandbox.token('ada', SEED.team.id)
  await sandbox.control('/users', { body: { username: 'linus', name: 'Linus' } })
  await sandbox.control('/teams', {
    body: { name: 'Other Co', slug: 'other', members: [{ user: 'linus', role: 'OWNER' }] },
  })
  outsider = await sandbox.token('linus')
})
afterAll(() => sandbox.close())

const api = (path: string, t = token) => call(`${sandbox.url}${path}`, { token: t })

describe('user and teams', () => {
  it('GET /v2/user', async () => {
    const r = await api('/v2/user', teamToken)
    expect(r.status).toBe(200)
    expect(r.body.user).toMatchObject({
      id: SEED.user.id,
      email: 'ada@vercel.test',
      name: 'Ada Lovelace',
      username: 'ada',
      avatar: null,
      defaultTeamId: null,
    })
    expect(r.body.user).not.toHaveProperty('uid')
  })

  it('GET /v2/teams: a personal token sees every membership, a team token only its team', async () => {
    const personal = await api('/v2/teams')
    expect(personal.status).toBe(200)
    expect(personal.body.teams).toHaveLength(1)
    expect(personal.body.teams[0]).toMatchObject({
      id: SEED.team.id,
      slug: 'acme',
      name: 'Acme',
      membership: { role: 'OWNER', uid: SEED.user.id, teamId: SEED.team.id },
    })
    expect(personal.body.pagination).toMatchObject({ count: 1, next: null })
    expect((await api('/v2/teams', outsider)).body.teams.map((t: { slug: string }) => t.slug)).toEqual([
      'other',
    ])
    expect((await api('/v2/teams', teamToken)).body.teams.map((t: { id: string }) => t.id)).toEqual([
      SEED.team.id,
    ])
  })

  it('GET /v2/teams/{teamId} by id or slug; a non-member gets 403', async () => {
    expect((await api(`/v2/teams/${SEED.team.id}`)).body).toMatchObject({
      id: SEED.team.id,
      creatorId: SEED.user.id,
    })
    expect((await api('/v2/teams/acme', teamToken)).status).toBe(200)
    const denied = await api(`/v2/teams/${SEED.team.id}`, outsider)
    expect(denied.status).toBe(403)
    expect(denied.body.error.code).toBe('forbidden')
  })

  it('GET /v2/teams/{teamId}/members (and /v3)', async () => {
    for (const v of ['v2', 'v3']) {
      const r = await api(`/${v}/teams/${SEED.team.id}/members`)
      expect(r.status).toBe(200)
      expect(r.body.members).toHaveLength(2)
      const byName = Object.fromEntries(r.body.members.map((m: { username: string }) => [m.username, m]))
      expect(byName.ada).toMatchObject({
        uid: SEED.user.id,
        email: 'ada@vercel.test',
        role: 'OWNER',
        confirmed: true,
      })
      expect(byName.grace).toMatchObject({ uid: SEED.member.id, role: 'MEMBER' })
      expect(r.body.pagination).toMatchObject({ hasNext: false, count: 2, next: null })
    }
    expect((await api(`/v2/teams/${SEED.team.id}/members?limit=1`)).body.pagination).toMatchObject({
      hasNext: true,
      count: 1,
    })
    expect((await api(`/v2/teams/${SEED.team.id}/members`, outsider)).status).toBe(403)
  })

  it('GET /v5/domains and /v5/domains/{domain} per scope', async () => {
    const personal = await api('/v5/domains')
    expect(personal.body.domains.map((d: { name: string }) => d.name)).toEqual(['ada.dev'])
    expect(personal.body.domains[0]).toMatchObject({
      id: expect.any(String),
      verified: true,
      nameservers: expect.any(Array),
      creator: { id: SEED.user.id },
      serviceType: 'external',
    })
    expect(personal.body.pagination).toMatchObject({ count: 1 })
    const teamDomains = await api(`/v5/domains?teamId=${SEED.team.id}`, teamToken)
    expect(teamDomains.body.domains.map((d: { name: string }) => d.name)).toEqual(['acme.com'])
    const one = await api('/v5/domains/acme.com?slug=acme', teamToken)
    expect(one.status).toBe(200)
    expect(one.body.domain).toMatchObject({ name: 'acme.com', teamId: SEED.team.id })
    expect((await api('/v5/domains/acme.com')).status).toBe(404)
  })
})

describe('team scoping', () => {
  const teamPath = `/v9/projects/${SEED.teamProject.id}`

  it('a team token must send teamId (or slug) of its own team', async () => {
    expect((await api(`${teamPath}?teamId=${SEED.team.id}`, teamToken)).status).toBe(200)
    expect((await api(`${teamPath}?slug=acme`, teamToken)).status).toBe(200)
    for (const path of [
      teamPath,
      `${teamPath}?teamId=other`,
      `${teamPath}?teamId=team_unknown`,
      '/v6/deployments',
      '/v9/projects',
    ]) {
      const r = await api(path, teamToken)
      expect(r.status, path).toBe(403)
      expect(r.body).toEqual({ error: { code: 'forbidden', message: 'Not authorized' } })
    }
  })

  it('a personal token may act on teams its user belongs to, not on others', async () => {
    expect((await api(`${teamPath}?teamId=${SEED.team.id}`)).status).toBe(200)
    expect((await api(`${teamPath}?teamId=${SEED.team.id}`, outsider)).status).toBe(403)
    expect((await api(`/v9/projects?teamId=other`)).status).toBe(403)
    expect((await api(`/v9/projects?teamId=other`, outsider)).status).toBe(200)
  })

  it('a team token minted for a team the user is not in is refused by the control API', async () => {
    const r = await sandbox.control('/tokens', { body: { user: 'linus', teamId: SEED.team.id } })
    expect(r.status).toBe(400)
  })
})
