import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { missingVendorFile, VendorSpec, type Answer, type Tolerated } from '../helpers/openapi-contract.ts'
import { SEED } from '../../src/sandboxes/vercel/seed.ts'
import { call, startTestSandbox, type TestSandbox } from '../../src/sandboxes/vercel/test-support.ts'

/**
 * Contract: every answer of the sandbox on the endpoints the product and docs/sandbox.md name
 * matches Vercel's OpenAPI document (the October 2025 file in shared/reference/openapi/).
 *
 * Where that file is older than the current @vercel/sdk, the sandbox follows the SDK (sdk.test.ts
 * proves the SDK reads every field); the exceptions are listed in SDK_OVER_OAS below with why.
 * Objects are closed: a field the file does not declare is a finding, so a response cannot pass
 * by matching a short member of a union while carrying the fields of the full one.
 * Endpoints the file does not describe (the SDK's `/v7/deployments`, older version segments such
 * as `/v9/projects`) are served like their documented twin and checked through it.
 */

/** Where the current SDK (1.28.35, the schemas sdk.test.ts holds the sandbox to) is newer than the file. */
const SDK_OVER_OAS: Tolerated = {
  properties: {
    securityIssues:
      "env list items: the SDK requires the secret scanner's findings (filterProjectEnvs throws without them)",
    echMode:
      'domains: the SDK requires the Encrypted Client Hello mode (getDomains and getDomain throw without it)',
    nodeVersion: "a deployment's projectSettings: the SDK reads the Node.js version there",
    alias: "projects: the SDK reads the project's aliases",
  },
  statuses: {
    'GET /v9/projects/{idOrName} 404':
      'the file lists 200/400/401/403 only; Vercel answers 404 not_found for an unknown project',
  },
}

let sandbox: TestSandbox
let token: string
const exchanges: Answer[] = []

async function hit(method: string, template: string, path: string, json?: unknown) {
  const response = await call(`${sandbox.url}${path}`, { method, token, json })
  exchanges.push({
    method,
    template,
    status: response.status,
    body: response.text === '' ? undefined : response.body,
    headers: response.headers,
  })
  return response
}

const skip = missingVendorFile('vercel.json')
if (skip) console.warn(`Vercel contract tests skipped: ${skip}`)

/**
 * Every exchange's departures from the file. The file defines every schema it names, so one it
 * names without defining is a departure too (it would be checked as any object).
 */
function findings(spec: VendorSpec): string[] {
  return exchanges.flatMap((exchange) => {
    const { errors, absent } = spec.check(exchange)
    return [
      ...errors,
      ...absent.map((name) => `${exchange.method} ${exchange.template}: schema ${name} is not in the file`),
    ]
  })
}

describe.skipIf(skip)(
  `Vercel sandbox against the vendor OpenAPI document${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    let spec: VendorSpec
    beforeAll(async () => {
      spec = new VendorSpec('vercel.json', {
        closed: true,
        oneOfAsAnyOf: true,
        errorBodiesUndocumented: true,
        tolerated: SDK_OVER_OAS,
      })
      sandbox = await startTestSandbox()
      token = await sandbox.token()
    })
    afterAll(async () => {
      await sandbox?.close()
    })

    it('answers every named endpoint in the documented shape', async () => {
      const team = `teamId=${SEED.team.id}`
      const p = SEED.personalProject.name
      const d = SEED.deployments

      // identify
      await hit('GET', '/v2/user', '/v2/user')
      await hit('GET', '/v2/teams', '/v2/teams')
      await hit('GET', '/v2/teams/{teamId}', `/v2/teams/${SEED.team.id}`)
      await hit('GET', '/v3/teams/{teamId}/members', `/v3/teams/${SEED.team.id}/members`)

      // deployments (the tool steps), in every state
      const created = await hit('POST', '/v13/deployments', '/v13/deployments', {
        name: p,
        target: 'production',
        meta: { ticket: 'T-1' },
        gitSource: { type: 'github', org: 'example', repo: p, ref: 'main', sha: 'abc123' },
      })
      await hit('GET', '/v13/deployments/{idOrUrl}', `/v13/deployments/${created.body.id}`)
      await sandbox.advance(2_000)
      await hit('GET', '/v13/deployments/{idOrUrl}', `/v13/deployments/${created.body.url}`)
      await sandbox.advance(8_000)
      await hit('GET', '/v13/deployments/{idOrUrl}', `/v13/deployments/${created.body.id}`)
      for (const id of [d.personalReady.id, d.personalError.id])
        await hit('GET', '/v13/deployments/{idOrUrl}', `/v13/deployments/${id}`)
      await hit('GET', '/v13/deployments/{idOrUrl}', `/v13/deployments/${d.teamCanceled.id}?${team}`)
      await hit('GET', '/v6/deployments', '/v6/deployments')
      await hit(
        'GET',
        '/v6/deployments',
        `/v6/deployments?projectId=${p}&target=production&state=READY,ERROR&limit=1`,
      )
      await hit('GET', '/v6/deployments', `/v6/deployments?${team}`)
      const queued = await hit('POST', '/v13/deployments', `/v13/deployments?${team}`, {
        name: SEED.teamProject.name,
      })
      await hit('PATCH', '/v12/deployments/{id}/cancel', `/v12/deployments/${queued.body.id}/cancel?${team}`)
      await hit('DELETE', '/v13/deployments/{id}', `/v13/deployments/${queued.body.id}?${team}`)

      // projects
      await hit('GET', '/v10/projects', '/v10/projects')
      const project = await hit('POST', '/v11/projects', '/v11/projects', {
        name: 'contract-made',
        framework: 'vite',
      })
      await hit('GET', '/v9/projects/{idOrName}', `/v9/projects/${p}`)
      await hit('PATCH', '/v9/projects/{idOrName}', `/v9/projects/${project.body.id}`, {
        buildCommand: 'make site',
      })
      await hit('DELETE', '/v9/projects/{idOrName}', `/v9/projects/${project.body.id}`)

      // environment variables, of every type
      const envs = await hit('POST', '/v10/projects/{idOrName}/env', `/v10/projects/${p}/env`, [
        { key: 'PLAIN', value: 'p', type: 'plain', target: ['production', 'preview'] },
        {
          key: 'ENC',
          value: 'e',
          type: 'encrypted',
          target: ['production'],
          comment: 'c',
          gitBranch: undefined,
        },
        { key: 'SENS', value: 's', type: 'sensitive', target: ['production'] },
        { key: 'BRANCHY', value: 'b', type: 'plain', target: ['preview'], gitBranch: 'feature-1' },
      ])
      await hit('POST', '/v10/projects/{idOrName}/env', `/v10/projects/${p}/env`, {
        key: 'ONE',
        value: '1',
        type: 'plain',
        target: ['development'],
      })
      await hit('GET', '/v10/projects/{idOrName}/env', `/v10/projects/${p}/env`)
      await hit('GET', '/v10/projects/{idOrName}/env', `/v10/projects/${p}/env?decrypt=true`)
      for (const env of envs.body.created)
        await hit('GET', '/v1/projects/{idOrName}/env/{id}', `/v1/projects/${p}/env/${env.id}`)
      const encId = envs.body.created[1].id
      await hit('PATCH', '/v9/projects/{idOrName}/env/{id}', `/v9/projects/${p}/env/${encId}`, {
        value: 'e2',
      })
      await hit('DELETE', '/v9/projects/{idOrName}/env/{id}', `/v9/projects/${p}/env/${encId}`)
      await hit('GET', '/v9/projects/{idOrName}', `/v9/projects/${p}`)

      // project domains, verified and not
      await hit('POST', '/v10/projects/{idOrName}/domains', `/v10/projects/${p}/domains`, {
        name: 'www.ada.dev',
      })
      await hit('POST', '/v10/projects/{idOrName}/domains', `/v10/projects/${p}/domains`, {
        name: 'blog.example.org',
        redirect: 'www.ada.dev',
        redirectStatusCode: 308,
      })
      await hit('GET', '/v9/projects/{idOrName}/domains', `/v9/projects/${p}/domains`)
      await hit(
        'GET',
        '/v9/projects/{idOrName}/domains/{domain}',
        `/v9/projects/${p}/domains/blog.example.org`,
      )
      await hit('DELETE', '/v9/projects/{idOrName}/domains/{domain}', `/v9/projects/${p}/domains/www.ada.dev`)

      // account domains
      await hit('GET', '/v5/domains', '/v5/domains')
      await hit('GET', '/v5/domains/{domain}', `/v5/domains/${SEED.domains.team}?${team}`)

      // webhooks
      const hook = await hit('POST', '/v1/webhooks', '/v1/webhooks', {
        url: 'https://hooks.example.com/v',
        events: ['deployment.created'],
        projectIds: [SEED.personalProject.id],
      })
      await hit('GET', '/v1/webhooks', '/v1/webhooks')
      await hit('GET', '/v1/webhooks/{id}', `/v1/webhooks/${hook.body.id}`)
      await hit('DELETE', '/v1/webhooks/{id}', `/v1/webhooks/${hook.body.id}`)

      expect(
        exchanges.filter((e) => e.status >= 300).map((e) => `${e.method} ${e.template} → ${e.status}`),
      ).toEqual([])
      expect(findings(spec)).toEqual([])
    })

    it('answers the documented error statuses', async () => {
      exchanges.length = 0
      await hit(
        'PATCH',
        '/v12/deployments/{id}/cancel',
        `/v12/deployments/${SEED.deployments.personalReady.id}/cancel`,
      )
      await hit('GET', '/v13/deployments/{idOrUrl}', '/v13/deployments/dpl_NoSuchDeployment000000000000')
      await hit('POST', '/v13/deployments', '/v13/deployments', {
        name: SEED.personalProject.name,
        meta: { a: 1 },
      })
      await hit('GET', '/v9/projects/{idOrName}', '/v9/projects/no-such-project')
      await hit('POST', '/v11/projects', '/v11/projects', { name: SEED.personalProject.name })
      expect(exchanges.map((e) => e.status)).toEqual([400, 404, 400, 404, 409])
      expect(findings(spec)).toEqual([])
    })
  },
)
