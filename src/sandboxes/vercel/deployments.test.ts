import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SEED } from './index.ts'
import { call, startTestSandbox, type TestSandbox } from './test-support.ts'

let sandbox: TestSandbox
let token: string
let teamToken: string
const team = `teamId=${SEED.team.id}`

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
beforeEach(async () => {
  await sandbox.control('/reset', { method: 'POST' })
  token = await sandbox.token()
  teamToken = await sandbox.token('ada', SEED.team.id)
})
afterAll(() => sandbox.close())

const create = (body: unknown, query = '', t = token) =>
  call(`${sandbox.url}/v13/deployments${query}`, { token: t, json: body })
const get = (id: string, query = '', t = token) =>
  call(`${sandbox.url}/v13/deployments/${id}${query}`, { token: t })
const cancel = (id: string, query = '', t = token) =>
  call(`${sandbox.url}/v12/deployments/${id}/cancel${query}`, { method: 'PATCH', token: t })

describe('POST /v13/deployments', () => {
  it('creates a QUEUED deployment with the documented shape; the branch goes to meta.githubCommitRef', async () => {
    const created = await create({
      name: SEED.personalProject.name,
      target: 'production',
      gitSource: { type: 'github', org: 'example', repo: 'ada-blog', ref: 'release', sha: 'abc123' },
      meta: { note: 'hi' },
    })
    expect(created.status).toBe(200)
    const d = created.body
    expect(d.id).toMatch(/^dpl_[0-9A-Za-z]{28}$/)
    expect(d.url).toMatch(/^ada-blog-[a-z0-9]{9}-ada\.vercel\.app$/)
    expect(d).toMatchObject({
      name: 'ada-blog',
      projectId: SEED.personalProject.id,
      ownerId: SEED.user.id,
      readyState: 'QUEUED',
      status: 'QUEUED',
      target: 'production',
      type: 'LAMBDAS',
      version: 2,
      regions: ['iad1'],
      creator: { uid: SEED.user.id, username: 'ada' },
      meta: {
        githubCommitRef: 'release',
        githubCommitSha: 'abc123',
        githubOrg: 'example',
        githubRepo: 'ada-blog',
        note: 'hi',
      },
      aliasAssigned: false,
      source: 'git',
    })
    expect(d.inspectorUrl).toBe(`https://vercel.com/ada/ada-blog/${d.id.slice(4)}`)
    expect(typeof d.createdAt).toBe('number')
  })

  it('preview (unset or "preview") has target null; staging stays; a new name creates the project', async () => {
    expect((await create({ name: 'ada-blog' })).body.target).toBeNull()
    expect((await create({ name: 'ada-blog', target: 'preview' })).body.target).toBeNull()
    expect((await create({ name: 'ada-blog', target: 'staging' })).body.target).toBe('staging')
    const fresh = await create({ name: 'brand-new', files: [], projectSettings: { framework: 'vite' } })
    expect(fresh.status).toBe(200)
    const project = await call(`${sandbox.url}/v9/projects/brand-new`, { token })
    expect(project.status).toBe(200)
    expect(project.body).toMatchObject({ id: fresh.body.projectId, framework: 'vite' })
    expect(fresh.body.source).toBe('cli')
  })

  it('rejects bad input with 400 bad_request naming the field', async () => {
    const cases: [unknown, string][] = [
      [{}, '`name`'],
      [{ name: 'ada-blog', target: 5 }, '`target`'],
      [{ name: 'ada-blog', meta: { a: 1 } }, '`meta.a`'],
      [{ name: 'ada-blog', gitSource: { type: 'svn', ref: 'x' } }, '`gitSource.type`'],
      [{ name: 'ada-blog', gitSource: { type: 'github', ref: 'x' }, files: [] }, '`files`'],
      [{ name: 'ada-blog', projectSettings: { framework: 'cobol' } }, '`projectSettings.framework`'],
      [{ name: 'Bad Name!' }, '`name`'],
      [[1, 2], 'object'],
    ]
    for (const [body, field] of cases) {
      const r = await create(body)
      expect(r.status, JSON.stringify(body)).toBe(400)
      expect(r.body.error.code).toBe('bad_request')
      expect(r.body.error.message).toContain(field)
    }
    const badJson = await call(`${sandbox.url}/v13/deployments`, {
      token,
      body: '{nope',
      headers: { 'content-type': 'application/json' },
    })
    expect(badJson.status).toBe(400)
    expect(badJson.body.error.code).toBe('bad_request')
    expect((await create({ project: 'prj_doesNotExist' })).status).toBe(404)
  })

  it('team deployments need the team scope', async () => {
    const r = await create({ name: SEED.teamProject.name }, `?${team}`, teamToken)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({
      ownerId: SEED.team.id,
      projectId: SEED.teamProject.id,
      team: { id: SEED.team.id, slug: 'acme' },
    })
    expect(r.body.url).toMatch(/-acme\.vercel\.app$/)
    expect((await create({ name: SEED.teamProject.name }, '', teamToken)).status).toBe(403)
  })
})

describe('state machine on the sandbox clock', () => {
  it('QUEUED → BUILDING after 2 s → READY after 10 s', async () => {
    const { id } = (await create({ name: 'ada-blog' })).body
    expect((await get(id)).body.readyState).toBe('QUEUED')
    await sandbox.advance(2_000)
    const building = (await get(id)).body
    expect(building.readyState).toBe('BUILDING')
    expect(building.buildingAt).toBe(building.createdAt + 2_000)
    await sandbox.advance(8_000)
    const ready = (await get(id)).body
    expect(ready).toMatchObject({
      readyState: 'READY',
      status: 'READY',
      ready: ready.createdAt + 10_000,
      aliasAssigned: true,
      aliasAssignedAt: ready.createdAt + 10_000,
    })
  })

  it('meta.sandboxOutcome "error" ends in ERROR', async () => {
    const { id } = (await create({ name: 'ada-blog', meta: { sandboxOutcome: 'error' } })).body
    await sandbox.advance(10_000)
    const d = (await get(id)).body
    expect(d.readyState).toBe('ERROR')
    expect(d.errorCode).toBeDefined()
  })

  it('cancel: QUEUED and BUILDING move to CANCELED with canceledAt', async () => {
    const queued = (await create({ name: 'ada-blog' })).body.id
    const c1 = await cancel(queued)
    expect(c1.status).toBe(200)
    expect(c1.body).toMatchObject({ id: queued, readyState: 'CANCELED' })
    expect(typeof c1.body.canceledAt).toBe('number')
    const building = (await create({ name: 'ada-blog' })).body.id
    await sandbox.advance(3_000)
    expect((await get(building)).body.readyState).toBe('BUILDING')
    expect((await cancel(building)).body.readyState).toBe('CANCELED')
    // A canceled deployment stays canceled when the clock moves on.
    await sandbox.advance(20_000)
    expect((await get(building)).body.readyState).toBe('CANCELED')
  })

  it('cancel: READY, ERROR and CANCELED are refused with 400 bad_request', async () => {
    const ready = (await create({ name: 'ada-blog' })).body.id
    const failed = (await create({ name: 'ada-blog', meta: { sandboxOutcome: 'error' } })).body.id
    await sandbox.advance(10_000)
    const canceled = (
      await sandbox.control('/deployments', { body: { project: SEED.personalProject.id, state: 'CANCELED' } })
    ).body.id
    for (const [id, state] of [
      [ready, 'READY'],
      [failed, 'ERROR'],
      [canceled, 'CANCELED'],
    ]) {
      const r = await cancel(id as string)
      expect(r.status).toBe(400)
      expect(r.body.error.code).toBe('bad_request')
      expect(r.body.error.message).toContain(`cannot be canceled because its state is ${state}`)
    }
    expect((await cancel('dpl_missing')).status).toBe(404)
  })

  it('control-created deployments are pinned in their state (BUILDING can still be canceled)', async () => {
    const d = (
      await sandbox.control('/deployments', {
        body: { project: 'ada-blog', owner: 'ada', state: 'BUILDING', branch: 'wip' },
      })
    ).body
    expect(d).toMatchObject({ readyState: 'BUILDING', meta: { githubCommitRef: 'wip' } })
    await sandbox.advance(60_000)
    expect((await get(d.id)).body.readyState).toBe('BUILDING')
    expect((await cancel(d.id)).body.readyState).toBe('CANCELED')
  })
})

describe('GET /v13/deployments/{idOrUrl} and DELETE', () => {
  it('finds by id or hostname; other owners and unknown ids are 404 not_found', async () => {
    const seeded = SEED.deployments.personalReady
    expect((await get(seeded.id)).body).toMatchObject({
      id: seeded.id,
      readyState: 'READY',
      target: 'production',
    })
    expect((await get(seeded.url)).body.id).toBe(seeded.id)
    const other = await get(SEED.deployments.teamReady.id)
    expect(other.status).toBe(404)
    expect(other.body).toEqual({ error: { code: 'not_found', message: 'Deployment not found' } })
    expect((await get(SEED.deployments.teamReady.id, `?${team}`)).status).toBe(200)
  })

  it('DELETE returns {uid, state: DELETED} and the deployment is gone', async () => {
    const { id } = (await create({ name: 'ada-blog' })).body
    const del = await call(`${sandbox.url}/v13/deployments/${id}`, { method: 'DELETE', token })
    expect(del.status).toBe(200)
    expect(del.body).toEqual({ uid: id, state: 'DELETED' })
    expect((await get(id)).status).toBe(404)
    expect((await call(`${sandbox.url}/v13/deployments/${id}`, { method: 'DELETE', token })).status).toBe(404)
  })
})

describe('GET /v7/deployments (the version @vercel/sdk 1.28 calls)', () => {
  it('answers like /v6', async () => {
    const [v6, v7] = await Promise.all(
      ['v6', 'v7'].map((v) => call(`${sandbox.url}/${v}/deployments`, { token })),
    )
    expect(v7.status).toBe(200)
    expect(v7.body).toEqual(v6.body)
  })
})

describe('GET /v6/deployments', () => {
  it('lists newest first with the list-item shape', async () => {
    const list = await call(`${sandbox.url}/v6/deployments`, { token })
    expect(list.status).toBe(200)
    expect(list.body.deployments.map((d: { uid: string }) => d.uid)).toEqual([
      SEED.deployments.personalError.id,
      SEED.deployments.personalReady.id,
    ])
    expect(list.body.deployments[0]).toMatchObject({
      uid: expect.any(String),
      name: 'ada-blog',
      url: expect.any(String),
      created: expect.any(Number),
      state: 'ERROR',
      readyState: 'ERROR',
      type: 'LAMBDAS',
      creator: { uid: SEED.user.id },
      inspectorUrl: expect.any(String),
      target: null,
    })
    expect(list.body.pagination).toEqual({ count: 2, next: null, prev: expect.any(Number) })
  })

  it('filters by projectId (id or name), target, state, since/until, branch', async () => {
    const p = await sandbox.control('/projects', { body: { owner: 'ada', name: 'other' } })
    const base = 1_800_000_000_000
    const mk = (body: Record<string, unknown>) =>
      sandbox.control('/deployments', { body: { project: 'ada-blog', owner: 'ada', ...body } })
    await mk({ state: 'READY', target: 'production', createdAt: base + 1, branch: 'main' })
    await mk({ state: 'BUILDING', createdAt: base + 2, branch: 'feat' })
    await sandbox.control('/deployments', {
      body: { project: p.body.id, state: 'QUEUED', createdAt: base + 3 },
    })
    const q = async (query: string) =>
      (await call(`${sandbox.url}/v6/deployments?${query}`, { token })).body.deployments.map(
        (d: { createdAt: number }) => d.createdAt,
      )
    expect(await q(`projectId=${p.body.id}`)).toEqual([base + 3])
    expect(await q('projectId=other')).toEqual([base + 3])
    expect(await q(`since=${base}&target=production`)).toEqual([base + 1])
    expect(await q(`since=${base}&target=preview`)).toEqual([base + 3, base + 2])
    expect(await q(`since=${base}&state=BUILDING,QUEUED`)).toEqual([base + 3, base + 2])
    expect(await q(`since=${base + 1}&until=${base + 3}`)).toEqual([base + 2])
    expect(await q(`since=${base}&branch=feat`)).toEqual([base + 2])
    const bad = await call(`${sandbox.url}/v6/deployments?state=DONE`, { token })
    expect(bad.status).toBe(400)
    expect(bad.body.error.message).toContain('`state`')
    expect((await call(`${sandbox.url}/v6/deployments?limit=0`, { token })).body.error.message).toContain(
      '`limit`',
    )
  })

  it('paginates with until=<pagination.next>', async () => {
    for (let i = 0; i < 5; i++) await create({ name: 'ada-blog' })
    const seen: string[] = []
    let url = `${sandbox.url}/v6/deployments?limit=3`
    for (let pages = 0; pages < 5; pages++) {
      const page = await call(url, { token })
      seen.push(...page.body.deployments.map((d: { uid: string }) => d.uid))
      expect(page.body.pagination.count).toBe(page.body.deployments.length)
      if (page.body.pagination.next === null) break
      url = `${sandbox.url}/v6/deployments?limit=3&until=${page.body.pagination.next}`
    }
    expect(seen).toHaveLength(7)
    expect(new Set(seen).size).toBe(7)
  })
})

describe('routing', () => {
  it('a wrong version segment or unknown path is Vercel 404 not_found; a wrong method is method_unknown', async () => {
    for (const [method, path] of [
      ['POST', '/v12/deployments'],
      ['GET', '/v12/deployments'],
      ['GET', '/v5/deployments'],
      ['GET', '/v14/deployments/x'],
      ['PATCH', '/v13/deployments/x/cancel'],
      ['GET', '/v1/user'],
      ['GET', '/v8/projects'],
      ['GET', '/nope'],
    ]) {
      const r = await call(`${sandbox.url}${path}`, {
        method,
        token,
        ...(method === 'POST' ? { json: {} } : {}),
      })
      expect(r.status, `${method} ${path}`).toBe(404)
      expect(r.body.error.code).toBe('not_found')
    }
    const wrong = await call(`${sandbox.url}/v6/deployments`, { method: 'DELETE', token })
    expect(wrong.status).toBe(405)
    expect(wrong.body.error).toEqual({
      code: 'method_unknown',
      message: 'This endpoint only responds to GET',
    })
  })

  it('no or unknown token → 403 forbidden "Not authorized"', async () => {
    for (const t of [undefined, 'bogus']) {
      const r = await call(`${sandbox.url}/v6/deployments`, { token: t })
      expect(r.status).toBe(403)
      expect(r.body).toEqual({ error: { code: 'forbidden', message: 'Not authorized' } })
    }
  })
})
