import type { OAuth2Credential } from '../../src/core/connections/credentials.ts'
import type { TestStack } from './test-stack.ts'

/** Calls the REST API as a given API key holder. */
export function client(stack: { url: string }, apiKey: string) {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${stack.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    })
    const text = await res.text()
    let json: any
    try {
      json = text ? JSON.parse(text) : undefined
    } catch {
      json = text
    }
    return { status: res.status, body: json, headers: res.headers, text }
  }
  return {
    call,
    get: (path: string) => call('GET', path),
    post: (path: string, body?: unknown) => call('POST', path, body ?? {}),
    put: (path: string, body?: unknown) => call('PUT', path, body ?? {}),
    patch: (path: string, body?: unknown) => call('PATCH', path, body ?? {}),
    delete: (path: string) => call('DELETE', path),
    run: (tool: string, integration: string, input: unknown) =>
      call('POST', `/v1/tools/${tool}/run`, { integration, input }),
  }
}

/** A JSON caller for a sandbox's control API (docs/sandbox.md). */
export function controlCaller(base: string) {
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    return { status: res.status, body: text ? JSON.parse(text) : undefined }
  }
}

/** The Zendesk sandbox's control API. */
export function zendeskControl(stack: { sandboxUrl: string }) {
  const call = controlCaller(`${stack.sandboxUrl}/zendesk/_control`)
  return {
    call,
    requests: async (): Promise<Array<{ method: string; path: string; status: number }>> => {
      const { body } = await call('GET', '/requests?limit=100000')
      return Array.isArray(body) ? body : body.requests
    },
    clearRequests: () => call('DELETE', '/requests'),
    fault: (fault: Record<string, unknown>) => call('POST', '/faults', fault),
    clearFaults: () => call('DELETE', '/faults'),
    mintToken: async (email: string, account = 'acme'): Promise<string> =>
      (await call('POST', `/accounts/${account}/tokens`, { email })).body.access_token,
  }
}

/** The stored OAuth 2.0 tokens of an integration, decrypted (tests only). */
export async function storedTokens(stack: TestStack, integrationId: string): Promise<OAuth2Credential> {
  const row = await stack.services.store.db
    .selectFrom('integrations')
    .select('credentials')
    .where('id', '=', integrationId)
    .executeTakeFirstOrThrow()
  const credential = stack.services.credentials.open(row.credentials!)
  if (credential.kind !== 'oauth2') throw new Error(`expected OAuth 2.0 tokens, found ${credential.kind}`)
  return credential
}
