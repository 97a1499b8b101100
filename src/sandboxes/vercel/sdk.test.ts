import { Vercel } from '@vercel/sdk'
import { HTTPClient } from '@vercel/sdk/lib/http.js'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SEED } from './seed.ts'
import { startTestSandbox, type TestSandbox } from './test-support.ts'

/**
 * The official SDK works against the sandbox unchanged, apart from the base URL, on every endpoint
 * the product and docs/sandbox.md name. The SDK validates each response with a union of schemas and
 * silently keeps the best-fitting member: a response it half-understands comes back with fields
 * missing and no error. So every call is checked twice: the fields a user reads have the expected
 * values, and the SDK's view holds everything the sandbox sent (nothing dropped, no `null` read as
 * absent, no value coerced) — which proves it matched the full member, not a smaller one.
 */

let sandbox: TestSandbox
let vercel: Vercel
let lastBody: unknown

const http = new HTTPClient().addHook('response', async (res) => {
  const text = await res.clone().text()
  lastBody = text ? JSON.parse(text) : undefined
})

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
beforeEach(async () => {
  await sandbox.control('/reset', { method: 'POST' })
  vercel = new Vercel({ bearerToken: await sandbox.token(), serverURL: sandbox.url, httpClient: http })
})
afterAll(async () => {
  await sandbox?.close()
})

/**
 * Where the SDK's parsed result differs from the JSON the sandbox sent: a field dropped, a `null`
 * read as absent, a value coerced, or a required field the sandbox left out and the SDK filled
 * with a zero value. `opaque` paths are objects the SDK types as open (`{}`) and empties.
 */
function lostBySdk(sent: unknown, read: unknown, opaque: string[], path = '$'): string[] {
  if (opaque.includes(path))
    return typeof read === 'object' && read !== null ? [] : [`${path}: SDK read ${String(read)}`]
  if (sent === null) return read === null ? [] : [`${path}: sent null, SDK read ${String(read)}`]
  if (Array.isArray(sent)) {
    if (!Array.isArray(read)) return [`${path}: sent an array, SDK read ${typeof read}`]
    return sent.flatMap((item, i) => lostBySdk(item, read[i], opaque, `${path}[${i}]`))
  }
  if (typeof sent === 'object') {
    if (read instanceof Date) return [`${path}: sent an object, SDK read a date`]
    if (typeof read !== 'object' || read === null)
      return [`${path}: sent an object, SDK read ${String(read)}`]
    const filled = Object.keys(read)
      .filter((key) => !(key in sent))
      .map((key) => `${path}.${key}: missing, the SDK filled it in`)
    return filled.concat(
      Object.entries(sent).flatMap(([key, value]) =>
        key in read
          ? lostBySdk(value, (read as Record<string, unknown>)[key], opaque, `${path}.${key}`)
          : [`${path}.${key}: dropped by the SDK`],
      ),
    )
  }
  return Object.is(sent, read)
    ? []
    : [`${path}: sent ${JSON.stringify(sent)}, SDK read ${JSON.stringify(read)}`]
}

/** Awaits an SDK call and fails if the SDK lost anything of the response on the way. */
async function faithfully<T>(call: Promise<T>, opaque: string[] = []): Promise<T> {
  const result = await call
  expect(lostBySdk(lastBody, result, opaque)).toEqual([])
  return result
}

/** Narrows an SDK union to its full member (the one with `key`), failing if the SDK chose another. */
function full<T extends object, K extends string>(value: T, key: K): Extract<T, Record<K, unknown>> {
  expect(value).toHaveProperty(key)
  return value as Extract<T, Record<K, unknown>>
}

const teamId = SEED.team.id
const personal = SEED.personalProject
const seeded = SEED.deployments
const creatorAda = { uid: SEED.user.id, username: SEED.user.username }
const mainMeta = { githubCommitRef: 'main', githubOrg: 'example', githubRepo: personal.name }

describe('@vercel/sdk: account and teams (identify)', () => {
  it('getAuthUser reads the user', async () => {
    // The SDK types `billing` as an object with no fields (the reference leaves them open).
    const me = await faithfully(vercel.user.getAuthUser(), ['$.user.billing'])
    expect(me?.user).toMatchObject({
      id: SEED.user.id,
      username: SEED.user.username,
      email: SEED.user.email,
      name: SEED.user.name,
      defaultTeamId: null,
    })
  })

  it('getTeams, getTeam and getTeamMembers read the team, the membership and its members', async () => {
    const { teams } = await faithfully(vercel.teams.getTeams({}))
    expect(teams).toEqual([
      expect.objectContaining({ id: teamId, slug: SEED.team.slug, name: SEED.team.name }),
    ])
    const team = await faithfully(vercel.teams.getTeam({ teamId }))
    expect(team).toMatchObject({
      id: teamId,
      slug: SEED.team.slug,
      name: SEED.team.name,
      membership: { role: 'OWNER', confirmed: true },
    })
    const { members } = await faithfully(vercel.teams.getTeamMembers({ teamId }))
    expect(members.map((m) => [m.username, m.role, m.email])).toEqual([
      [SEED.member.username, 'MEMBER', SEED.member.email],
      [SEED.user.username, 'OWNER', SEED.user.email],
    ])
  })
})

describe('@vercel/sdk: deployments (the tool steps)', () => {
  it('createDeployment returns the url, status, creator, target, meta and project', async () => {
    const created = full(
      await faithfully(
        vercel.deployments.createDeployment({
          requestBody: {
            name: personal.name,
            project: personal.name,
            target: 'production',
            meta: { ticket: 'T-1' },
            gitMetadata: { commitRef: 'release' },
          },
        }),
      ),
      'url',
    )
    expect(created).toMatchObject({
      name: personal.name,
      projectId: personal.id,
      ownerId: SEED.user.id,
      readyState: 'QUEUED',
      status: 'QUEUED',
      target: 'production',
      creator: creatorAda,
      meta: { ticket: 'T-1', githubCommitRef: 'release' },
      project: { id: personal.id, name: personal.name, framework: personal.framework },
      aliasAssigned: false,
      alias: [],
    })
    expect(created.url).toMatch(/^ada-blog-[a-z0-9]{9}-ada\.vercel\.app$/)
    expect(created.inspectorUrl).toBe(`https://vercel.com/ada/ada-blog/${created.id.slice(4)}`)
    expect(created.createdAt).toBeGreaterThan(0)
  })

  it('a client polls a new deployment through BUILDING to READY with getDeployment', async () => {
    const created = full(
      await faithfully(vercel.deployments.createDeployment({ requestBody: { name: personal.name } })),
      'url',
    )
    await sandbox.advance(2_000)
    const building = await faithfully(vercel.deployments.getDeployment({ idOrUrl: created.id }))
    expect(building).toMatchObject({
      id: created.id,
      url: created.url,
      readyState: 'BUILDING',
      status: 'BUILDING',
      target: null,
      aliasAssigned: false,
    })
    await sandbox.advance(8_000)
    const ready = await faithfully(vercel.deployments.getDeployment({ idOrUrl: created.url }))
    expect(ready).toMatchObject({
      id: created.id,
      url: created.url,
      readyState: 'READY',
      status: 'READY',
      aliasAssigned: true,
      alias: [created.url],
      creator: creatorAda,
    })
    expect(ready).toHaveProperty('ready', created.createdAt + 10_000)
  })

  it('getDeployment reads the seeded READY, ERROR and CANCELED deployments', async () => {
    const ready = await faithfully(vercel.deployments.getDeployment({ idOrUrl: seeded.personalReady.id }))
    expect(ready).toMatchObject({
      id: seeded.personalReady.id,
      url: seeded.personalReady.url,
      name: personal.name,
      readyState: 'READY',
      status: 'READY',
      target: 'production',
      aliasAssigned: true,
      alias: [seeded.personalReady.url],
      creator: creatorAda,
      meta: mainMeta,
      project: { id: personal.id, name: personal.name },
      createdAt: Date.UTC(2024, 0, 3),
    })
    const failed = await faithfully(vercel.deployments.getDeployment({ idOrUrl: seeded.personalError.id }))
    expect(failed).toMatchObject({
      readyState: 'ERROR',
      status: 'ERROR',
      errorCode: 'BUILD_FAILED',
      target: null,
      meta: { githubCommitRef: 'draft' },
    })
    const canceled = await faithfully(
      vercel.deployments.getDeployment({ idOrUrl: seeded.teamCanceled.id, teamId }),
    )
    expect(canceled).toMatchObject({
      readyState: 'CANCELED',
      status: 'CANCELED',
      creator: { uid: SEED.member.id, username: SEED.member.username },
    })
  })

  it('getDeployments lists with filters, newest first, with uid, url, state, target, creator and meta', async () => {
    const { deployments } = await faithfully(vercel.deployments.getDeployments({ projectId: personal.name }))
    expect(deployments.map((d) => [d.uid, d.url, d.state, d.readyState, d.target])).toEqual([
      [seeded.personalError.id, seeded.personalError.url, 'ERROR', 'ERROR', null],
      [seeded.personalReady.id, seeded.personalReady.url, 'READY', 'READY', 'production'],
    ])
    expect(deployments[1]).toMatchObject({
      name: personal.name,
      creator: { ...creatorAda, email: SEED.user.email },
      meta: mainMeta,
      created: Date.UTC(2024, 0, 3),
      aliasAssigned: Date.UTC(2024, 0, 3) + 10_000,
    })
    const production = await faithfully(vercel.deployments.getDeployments({ teamId, target: 'production' }))
    expect(production.deployments.map((d) => d.uid)).toEqual([seeded.teamReady.id])
    expect(production.pagination).toMatchObject({ count: 1, next: null })
  })

  it('cancelDeployment cancels a queued deployment; deleteDeployment removes one', async () => {
    const created = full(
      await faithfully(
        vercel.deployments.createDeployment({ requestBody: { name: SEED.teamProject.name }, teamId }),
      ),
      'url',
    )
    const canceled = await faithfully(vercel.deployments.cancelDeployment({ id: created.id, teamId }))
    expect(canceled).toMatchObject({
      id: created.id,
      url: created.url,
      readyState: 'CANCELED',
      status: 'CANCELED',
      creator: creatorAda,
    })
    expect(canceled.canceledAt).toBeGreaterThan(0)
    const deleted = await faithfully(vercel.deployments.deleteDeployment({ id: created.id, teamId }))
    expect(deleted).toEqual({ uid: created.id, state: 'DELETED' })
  })
})

describe('@vercel/sdk: projects, env and domains', () => {
  it('getProjects, createProject, getProject, updateProject and deleteProject', async () => {
    const { projects } = full(await faithfully(vercel.projects.getProjects({})), 'projects')
    expect(projects).toEqual([
      expect.objectContaining({
        id: personal.id,
        name: personal.name,
        framework: personal.framework,
        accountId: SEED.user.id,
      }),
    ])
    expect(projects[0]?.targets?.production).toMatchObject({
      id: seeded.personalReady.id,
      url: seeded.personalReady.url,
      readyState: 'READY',
      readyAt: Date.UTC(2024, 0, 3) + 10_000,
      creator: { uid: SEED.user.id },
    })
    const created = await faithfully(
      vercel.projects.createProject({ requestBody: { name: 'sdk-made', framework: 'vite' } }),
    )
    expect(created).toMatchObject({ name: 'sdk-made', framework: 'vite', accountId: SEED.user.id })
    const read = await faithfully(vercel.projects.getProject({ idOrName: 'sdk-made' }))
    expect(read).toMatchObject({ id: created.id, name: 'sdk-made' })
    const updated = await faithfully(
      vercel.projects.updateProject({ idOrName: created.id, requestBody: { buildCommand: 'make site' } }),
    )
    expect(updated).toMatchObject({ id: created.id, buildCommand: 'make site' })
    await vercel.projects.deleteProject({ idOrName: created.id })
    await expect(vercel.projects.getProject({ idOrName: created.id })).rejects.toThrow()
  })

  it('createProjectEnv, filterProjectEnvs, getProjectEnv, editProjectEnv and removeProjectEnv', async () => {
    const made = await faithfully(
      vercel.projects.createProjectEnv({
        idOrName: personal.name,
        requestBody: [
          { key: 'PUBLIC_URL', value: 'https://ada.dev', type: 'plain', target: ['production', 'preview'] },
          {
            key: 'API_KEY',
            value: 's3cret',
            type: 'encrypted',
            target: ['production'],
            comment: 'rotated monthly',
          },
        ],
      }),
    )
    expect(made.failed).toEqual([])
    const { envs } = (await faithfully(vercel.projects.filterProjectEnvs({ idOrName: personal.name }))) as {
      envs: Array<Record<string, unknown>>
    }
    expect(envs.map((e) => [e.key, e.type, e.target, e.decrypted])).toEqual([
      ['PUBLIC_URL', 'plain', ['production', 'preview'], false],
      ['API_KEY', 'encrypted', ['production'], false],
    ])
    expect(envs[0]?.value).toBe('https://ada.dev')
    expect(envs[1]?.value).not.toBe('s3cret')
    const id = envs[1]?.id as string
    const decrypted = await faithfully(vercel.projects.getProjectEnv({ idOrName: personal.name, id }))
    expect(decrypted).toMatchObject({
      id,
      key: 'API_KEY',
      value: 's3cret',
      decrypted: true,
      comment: 'rotated monthly',
    })
    const edited = await faithfully(
      vercel.projects.editProjectEnv({ idOrName: personal.name, id, requestBody: { value: 'n3w' } }),
    )
    expect(edited).toMatchObject({ id, key: 'API_KEY', type: 'encrypted' })
    const removed = await faithfully(vercel.projects.removeProjectEnv({ idOrName: personal.name, id }))
    expect(removed).toMatchObject({ id, key: 'API_KEY' })
  })

  it('addProjectDomain, getProjectDomains, getProjectDomain and removeProjectDomain', async () => {
    const added = await faithfully(
      vercel.projects.addProjectDomain({ idOrName: personal.name, requestBody: { name: 'www.ada.dev' } }),
    )
    expect(added).toMatchObject({
      name: 'www.ada.dev',
      apexName: 'ada.dev',
      projectId: personal.id,
      verified: true,
    })
    const { domains } = await faithfully(vercel.projects.getProjectDomains({ idOrName: personal.name }))
    expect(domains.map((d) => d.name)).toEqual(['www.ada.dev'])
    const one = await faithfully(
      vercel.projects.getProjectDomain({ idOrName: personal.name, domain: 'www.ada.dev' }),
    )
    expect(one).toMatchObject({ name: 'www.ada.dev', verified: true })
    await faithfully(vercel.projects.removeProjectDomain({ idOrName: personal.name, domain: 'www.ada.dev' }))
    expect((await vercel.projects.getProjectDomains({ idOrName: personal.name })).domains).toEqual([])
  })

  it("getDomains and getDomain read the scope's domains", async () => {
    const { domains } = await faithfully(vercel.domains.getDomains({}))
    expect(domains.map((d) => [d.name, d.verified, d.serviceType])).toEqual([
      [SEED.domains.personal, true, 'external'],
    ])
    const { domain } = await faithfully(vercel.domains.getDomain({ domain: SEED.domains.team, teamId }))
    expect(domain).toMatchObject({
      name: SEED.domains.team,
      verified: true,
      serviceType: 'zeit.world',
      creator: { username: SEED.user.username },
    })
  })
})

describe('@vercel/sdk: webhooks', () => {
  it('createWebhook returns the secret once; getWebhooks, getWebhook and deleteWebhook', async () => {
    const created = await faithfully(
      vercel.webhooks.createWebhook({
        requestBody: {
          url: 'https://hooks.example.com/vercel',
          events: ['deployment.created', 'deployment.succeeded'],
          projectIds: [personal.id],
        },
      }),
    )
    expect(created).toMatchObject({
      url: 'https://hooks.example.com/vercel',
      events: ['deployment.created', 'deployment.succeeded'],
      projectIds: [personal.id],
      ownerId: SEED.user.id,
    })
    expect(created.secret).toMatch(/^[\w-]{24,}$/)
    const listed = await faithfully(vercel.webhooks.getWebhooks({}))
    expect(listed).toEqual([expect.objectContaining({ id: created.id, url: created.url })])
    expect(listed[0]).not.toHaveProperty('secret')
    const one = await faithfully(vercel.webhooks.getWebhook({ id: created.id }))
    expect(one).toMatchObject({ id: created.id, events: created.events })
    await vercel.webhooks.deleteWebhook({ id: created.id })
    expect(await vercel.webhooks.getWebhooks({})).toEqual([])
  })
})
