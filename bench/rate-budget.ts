import { Agent, request } from 'undici'
import { SEED } from '../src/sandboxes/trello/seed.ts'

// Rate-budget utilisation: N agents hammer one Trello token through Switchyard for a fixed time.
// Utilisation = requests completed ÷ (what the token allows: 100 per 10 s × elapsed). The sandbox
// enforces Trello's limits, so any 429 it sends is counted.
export const TOKEN_LIMIT_PER_S = 100 / 10
const dispatcher = new Agent({ connections: 64 })

export interface UtilisationResult {
  agents: number
  completed: number
  elapsedS: number
  utilisation: number
  sandbox429s: number
}

async function call(url: string, init: { method: string; headers: Record<string, string>; body?: string }) {
  const res = await request(url, { ...init, dispatcher } as any)
  const text = await res.body.text()
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined }
}

export async function mintTrelloToken(sandboxUrl: string): Promise<string> {
  const res = await call(`${sandboxUrl}/trello/_control/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ member: 'ada', key: SEED.app.key, scope: 'read,write', expiration: 'never' }),
  })
  return res.body.token
}

/** Connects Trello with a fresh token, so each measurement starts with an untouched budget. */
export async function connectFreshToken(
  serviceUrl: string,
  apiKey: string,
  sandboxUrl: string,
): Promise<string> {
  const token = await mintTrelloToken(sandboxUrl)
  const res = await call(`${serviceUrl}/v1/integrations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ platform: 'trello', credentials: { key: SEED.app.key, token } }),
  })
  if (res.status !== 201)
    throw new Error(`could not connect Trello: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.id
}

export async function measureUtilisation(options: {
  serviceUrls: string[]
  agentKeys: string[]
  integration: string
  sandboxUrl: string
  durationMs: number
}): Promise<UtilisationResult> {
  await call(`${options.sandboxUrl}/trello/_control/requests`, { method: 'DELETE', headers: {} })
  const body = JSON.stringify({ integration: options.integration, input: { card_id: SEED.cards.api.id } })
  let completed = 0
  const started = Date.now()
  const deadline = started + options.durationMs
  await Promise.all(
    options.agentKeys.map(async (apiKey, i) => {
      const url = `${options.serviceUrls[i % options.serviceUrls.length]}/v1/tools/trello.get_card/run`
      while (Date.now() < deadline) {
        const res = await call(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body,
        })
        if (res.status === 200 && Date.now() <= deadline) completed++
      }
    }),
  )
  const elapsedS = options.durationMs / 1000
  const log = await call(`${options.sandboxUrl}/trello/_control/requests?limit=100000`, {
    method: 'GET',
    headers: {},
  })
  const sandbox429s = (log.body.requests as Array<{ status: number }>).filter((r) => r.status === 429).length
  return {
    agents: options.agentKeys.length,
    completed,
    elapsedS,
    utilisation: completed / (TOKEN_LIMIT_PER_S * elapsedS),
    sandbox429s,
  }
}
