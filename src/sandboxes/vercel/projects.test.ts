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

const api = (path: string, init: Parameters<typeof call>[1] = {}) =>
  call(`${sandbox.url}${path}`, { token, ...init })

describe('projects', () => {
  it('GET /v9/projects/{idOrName} has the required fields and latestDeployments', async () => {
    for (const ref of [SEED.teamProject.id, SEED.teamProject.name]) {
      const r = await api(`/v9/projects/${ref}?${team}`, { token: teamToken })
      expect(r.status).toBe(200)
      expect(r.body).toMatchObject({
        accountId: SEED.team.id,
        id: SEED.teamProject.id,
        name: 'acme-web',
        framework: 'nextjs',
        nodeVersion: '22.x',
        directoryListing: false,
        resourceConfig: expect.any(Object),
        defaultResourceConfig: expect.any(Object),
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
      })
      expect(r.body.latestDeployments.map((d: { id: string }) => d.id)).toEqual([
        SEED.deployments.teamCanceled.id,
        SEED.deployments.teamReady.id,
      ])
      expect(r.body.targets.production.id).toBe(SEED.deployments.teamReady.id)
    }
    const missing = await api('/v9/projects/nope')
    expect(missing.status).toBe(404)
    expect(missing.body.error.code).toBe('not_found')
    // A team project is not visible in the personal scope.
    expect((await api(`/v9/projects/${SEED.teamProject.id}`)).status).toBe(404)
  })

  it('POST /v10/projects creates (also at /v11); names are unique per owner (409 conflict)', async () => {
    const created = await api('/v10/projects', {
      json: {
        name: 'new-site',
        framework: 'astro',
        buildCommand: 'npm run build',
        environmentVariables: [{ key: 'A', value: '1', target: ['production'], type: 'plain' }],
      },
    })
    expect(created.status).toBe(200)
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^prj_/),
      name: 'new-site',
      framework: 'astro',
      buildCommand: 'npm run build',
      accountId: SEED.user.id,
      latestDeployments: [],
    })
    expect(created.body.env).toHaveLength(1)
    const dup = await api('/v11/projects', { json: { name: 'new-site' } })
    expect(dup.status).toBe(409)
    expect(dup.body.error.code).toBe('conflict')
    // Same name under another owner is fine.
    expect(
      (await api(`/v10/projects?${team}`, { token: teamToken, json: { name: 'new-site' } })).status,
    ).toBe(200)
    for (const [body, field] of [
      [{}, '`name`'],
      [{ name: 'UPPER' }, '`name`'],
      [{ name: 'ok', framework: 'cobol' }, '`framework`'],
      [{ name: 'ok', nodeVersion: '8.x' }, '`nodeVersion`'],
      [{ name: 'ok', buildCommand: 5 }, '`buildCommand`'],
    ] as const) {
      const r = await api('/v10/projects', { json: body })
      expect(r.status, JSON.stringify(body)).toBe(400)
      expect(r.body.error.message).toContain(field)
    }
    expect((await api('/v9/projects/ok')).status).toBe(404)
  })

  it('GET /v9/projects lists with search and pagination', async () => {
    for (const name of ['a-one', 'a-two', 'a-three']) {
      await api('/v10/projects', { json: { name } })
      await sandbox.advance(1000)
    }
    const searched = await api('/v9/projects?search=a-t')
    expect(searched.body.projects.map((p: { name: string }) => p.name)).toEqual(['a-three', 'a-two'])
    const first = await api('/v9/projects?limit=2')
    expect(first.body.projects.map((p: { name: string }) => p.name)).toEqual(['a-three', 'a-two'])
    expect(first.body.pagination.count).toBe(2)
    const second = await api(`/v10/projects?limit=2&until=${first.body.pagination.next}`)
    expect(second.body.projects.map((p: { name: string }) => p.name)).toEqual(['a-one', 'ada-blog'])
  })

  it('PATCH updates settings and name (conflict on a taken name); DELETE is 204 and removes deployments', async () => {
    await api('/v10/projects', { json: { name: 'taken' } })
    const patched = await api(`/v9/projects/${SEED.personalProject.id}`, {
      method: 'PATCH',
      json: { name: 'renamed', framework: 'remix', outputDirectory: 'dist' },
    })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ name: 'renamed', framework: 'remix', outputDirectory: 'dist' })
    expect((await api('/v9/projects/renamed')).status).toBe(200)
    expect((await api('/v9/projects/renamed', { method: 'PATCH', json: { name: 'taken' } })).status).toBe(409)
    expect((await api('/v9/projects/renamed', { method: 'PATCH', json: { framework: 42 } })).status).toBe(400)
    const del = await api('/v9/projects/renamed', { method: 'DELETE' })
    expect(del.status).toBe(204)
    expect((await api('/v9/projects/renamed')).status).toBe(404)
    expect((await api(`/v13/deployments/${SEED.deployments.personalReady.id}`)).status).toBe(404)
  })
})

describe('environment variables', () => {
  const env = (query = '') => `/v10/projects/${SEED.personalProject.name}/env${query}`

  it('creates one (201 {created, failed}); plain shown, encrypted hidden unless decrypt=true, sensitive never', async () => {
    const one = await api(env(), {
      json: { key: 'PLAIN', value: 'p-value', type: 'plain', target: ['production', 'preview'] },
    })
    expect(one.status).toBe(201)
    expect(one.body.failed).toEqual([])
    expect(one.body.created).toMatchObject({
      id: expect.any(String),
      key: 'PLAIN',
      value: 'p-value',
      type: 'plain',
      target: ['production', 'preview'],
    })
    const many = await api(env(), {
      json: [
        { key: 'ENC', value: 'e-value', type: 'encrypted', target: ['production'] },
        { key: 'SENS', value: 's-value', type: 'sensitive', target: ['production'] },
        {
          key: 'BRANCHY',
          value: 'b',
          type: 'plain',
          target: ['preview'],
          gitBranch: 'feature-1',
          comment: 'c',
        },
      ],
    })
    expect(many.status).toBe(201)
    expect(many.body.created).toHaveLength(3)

    const listed = await api(`/v9/projects/${SEED.personalProject.name}/env`)
    expect(listed.status).toBe(200)
    const byKey = Object.fromEntries(listed.body.envs.map((e: { key: string }) => [e.key, e]))
    expect(byKey.PLAIN.value).toBe('p-value')
    expect(byKey.ENC.value).not.toBe('e-value')
    expect(byKey.ENC.decrypted).toBe(false)
    expect(byKey.SENS.value).toBe('')
    expect(byKey.BRANCHY).toMatchObject({ gitBranch: 'feature-1', comment: 'c' })
    const decrypted = await api(env('?decrypt=true'))
    const dByKey = Object.fromEntries(decrypted.body.envs.map((e: { key: string }) => [e.key, e]))
    expect(dByKey.ENC).toMatchObject({ value: 'e-value', decrypted: true })
    expect(dByKey.SENS.value).toBe('')
    expect(JSON.stringify(decrypted.body)).not.toContain('s-value')
    // The single-variable read decrypts encrypted values but never sensitive ones.
    expect((await api(`/v1/projects/${SEED.personalProject.name}/env/${byKey.ENC.id}`)).body.value).toBe(
      'e-value',
    )
    expect((await api(`/v1/projects/${SEED.personalProject.name}/env/${byKey.SENS.id}`)).body.value).toBe('')
  })

  it('conflicts go to failed (array) or 409 (single); upsert=true replaces', async () => {
    await api(env(), { json: { key: 'K', value: 'v1', type: 'plain', target: ['production'] } })
    const arr = await api(env(), {
      json: [
        { key: 'K', value: 'v2', type: 'plain', target: ['production', 'preview'] },
        { key: 'J', value: 'x', type: 'plain', target: ['development'] },
      ],
    })
    expect(arr.status).toBe(201)
    expect(arr.body.created).toHaveLength(1)
    expect(arr.body.failed[0].error).toMatchObject({ code: 'ENV_CONFLICT', key: 'K' })
    const single = await api(env(), {
      json: { key: 'K', value: 'v2', type: 'plain', target: ['production'] },
    })
    expect(single.status).toBe(409)
    expect(single.body.error.code).toBe('ENV_CONFLICT')
    const upserted = await api(env('?upsert=true'), {
      json: { key: 'K', value: 'v3', type: 'encrypted', target: ['production'] },
    })
    expect(upserted.status).toBe(201)
    const list = await api(env('?decrypt=true'))
    const ks = list.body.envs.filter((e: { key: string }) => e.key === 'K')
    expect(ks).toHaveLength(1)
    expect(ks[0]).toMatchObject({ value: 'v3', type: 'encrypted' })
  })

  it('validates type, target, key, value and gitBranch', async () => {
    for (const [body, field] of [
      [{ key: 'A', value: 'v', type: 'weird', target: ['production'] }, '.type`'],
      [{ key: 'A', value: 'v', type: 'plain', target: ['staging'] }, '.target`'],
      [{ key: 'A', value: 'v', type: 'plain' }, '.target`'],
      [{ key: '1A', value: 'v', type: 'plain', target: ['production'] }, '.key`'],
      [{ key: 'A', type: 'plain', target: ['production'] }, '.value`'],
      [{ key: 'A', value: 'v', type: 'plain', target: ['production'], gitBranch: 'x' }, '.gitBranch`'],
      [[], 'at least one'],
    ] as const) {
      const r = await api(env(), { json: body })
      expect(r.status, JSON.stringify(body)).toBe(400)
      expect(r.body.error.code).toBe('bad_request')
      expect(r.body.error.message).toContain(field)
    }
    for (const type of ['system', 'secret', 'encrypted', 'plain', 'sensitive']) {
      expect(
        (await api(env(), { json: { key: `T_${type}`, value: 'v', type, target: ['development'] } })).status,
      ).toBe(201)
    }
  })

  it('PATCH and DELETE /v9/projects/{idOrName}/env/{id}', async () => {
    const { created } = (
      await api(env(), { json: { key: 'X', value: 'v', type: 'plain', target: ['production'] } })
    ).body
    const patched = await api(`/v9/projects/${SEED.personalProject.id}/env/${created.id}`, {
      method: 'PATCH',
      json: { value: 'v2', target: ['production', 'development'] },
    })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({
      id: created.id,
      value: 'v2',
      target: ['production', 'development'],
      updatedBy: SEED.user.id,
    })
    expect(
      (
        await api(`/v9/projects/${SEED.personalProject.id}/env/${created.id}`, {
          method: 'PATCH',
          json: { type: 'nope' },
        })
      ).status,
    ).toBe(400)
    const del = await api(`/v9/projects/${SEED.personalProject.id}/env/${created.id}`, { method: 'DELETE' })
    expect(del.status).toBe(200)
    expect(del.body.id).toBe(created.id)
    expect(
      (await api(`/v9/projects/${SEED.personalProject.id}/env/${created.id}`, { method: 'DELETE' })).status,
    ).toBe(404)
  })
})

describe('project domains', () => {
  it('adds (verified for an owned apex or *.vercel.app, else a TXT challenge), rejects duplicates, removes', async () => {
    const owned = await api(`/v10/projects/acme-web/domains?${team}`, {
      token: teamToken,
      json: { name: 'www.acme.com' },
    })
    expect(owned.status).toBe(200)
    expect(owned.body).toMatchObject({
      name: 'www.acme.com',
      apexName: 'acme.com',
      projectId: SEED.teamProject.id,
      verified: true,
    })
    const foreign = await api(`/v10/projects/acme-web/domains?${team}`, {
      token: teamToken,
      json: { name: 'shop.example.org' },
    })
    expect(foreign.body.verified).toBe(false)
    expect(foreign.body.verification[0]).toMatchObject({ type: 'TXT', domain: '_vercel.example.org' })
    const dup = await api(`/v10/projects/ada-blog/domains`, { json: { name: 'www.acme.com' } })
    expect(dup.status).toBe(409)
    expect(dup.body.error.code).toBe('domain_already_in_use')
    const bad = await api(`/v10/projects/ada-blog/domains`, { json: { name: 'not a domain' } })
    expect(bad.status).toBe(400)
    expect(bad.body.error.message).toContain('`name`')
    const listed = await api(`/v9/projects/acme-web/domains?${team}`, { token: teamToken })
    expect(listed.body.domains.map((d: { name: string }) => d.name)).toEqual([
      'www.acme.com',
      'shop.example.org',
    ])
    const removed = await api(`/v9/projects/acme-web/domains/www.acme.com?${team}`, {
      token: teamToken,
      method: 'DELETE',
    })
    expect(removed.status).toBe(200)
    expect(removed.body).toEqual({})
    expect(
      (
        await api(`/v9/projects/acme-web/domains/www.acme.com?${team}`, {
          token: teamToken,
          method: 'DELETE',
        })
      ).status,
    ).toBe(404)
  })
})
