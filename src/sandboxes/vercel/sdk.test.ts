import { Vercel } from '@vercel/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SEED } from './seed.ts'
import { startTestSandbox, type TestSandbox } from './test-support.ts'

// The official SDK works against the sandbox unchanged, apart from the base URL.
let sandbox: TestSandbox
let vercel: Vercel
beforeAll(async () => {
  sandbox = await startTestSandbox()
  vercel = new Vercel({ bearerToken: await sandbox.token(), serverURL: sandbox.url })
})
afterAll(async () => { await sandbox?.close() })

describe('@vercel/sdk against the sandbox', () => {
  it('reads the authenticated user', async () => {
    const me: any = await vercel.user.getAuthUser()
    expect(me.user.username).toBe(SEED.user.username)
  })

  it('lists projects and deployments, creates a deployment and cancels it', async () => {
    const projects = await vercel.projects.getProjects({})
    expect(projects).toMatchObject({ projects: [expect.objectContaining({ name: SEED.personalProject.name })] })
    const created = await vercel.deployments.createDeployment({ requestBody: { name: SEED.personalProject.name, project: SEED.personalProject.name } })
    expect(created.readyState).toBe('QUEUED')
    const listed = await vercel.deployments.getDeployments({ limit: 20 })
    expect(listed.deployments.map((d) => d.uid)).toContain(created.id)
    expect((await vercel.deployments.cancelDeployment({ id: created.id })).readyState).toBe('CANCELED')
  })
})
