import { Agent, request } from 'undici'

/**
 * What the trigger bench (bench/triggers.ts) needs from a platform: set up a subscription whose runs
 * do no platform work, then make signed deliveries for its webhook address, each a new event. The
 * measuring code is the same for every platform; only the signature and payload differ.
 */
export interface Delivery {
  /** The event's own id, unique per delivery, as the run's event shows it again. */
  id: string
  body: string
  headers: Record<string, string>
}

export interface DeliveryTarget {
  /** The subscription the deliveries start runs of. */
  subscriptionId: string
  /** Where the platform would POST: the intake's address for this subscription. */
  address: string
  /** A fresh delivery, signed as the platform signs it. */
  make(): Delivery
  /** The id of the event a run was started by (the one `Delivery.id` names), read from the run's event. */
  eventIdOf(runEvent: any): string | undefined
}

export interface DeliveryFactory {
  platform: 'trello' | 'zendesk' | 'vercel'
  setUp(service: Service, sandboxUrl: string): Promise<DeliveryTarget>
}

export interface Service {
  url: string
  apiKey: string
  /** The service's process, whose CPU time the trigger bench reads (bench/cpu.ts). */
  pid?: number
}

export const dispatcher = new Agent({ connections: 64, keepAliveTimeout: 30_000 })

/** One call to the service's REST API; answers the JSON body, throws on anything but 2xx. */
export async function call(service: Service, method: string, path: string, body?: unknown): Promise<any> {
  const res = await request(`${service.url}${path}`, {
    method: method as 'GET',
    dispatcher,
    headers: {
      authorization: `Bearer ${service.apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.body.text()
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`)
  return text ? JSON.parse(text) : undefined
}

/**
 * An agent whose one step is skipped (its condition is false), subscribed to `trigger` and active:
 * its runs start and end without a platform call. Answers the activated subscription.
 */
export async function skippedAgentSubscription(
  service: Service,
  options: {
    step: { tool: string; input: Record<string, unknown> }
    integration: string
    trigger: string
    config: Record<string, unknown>
    mapping: Record<string, string>
    extra?: Record<string, unknown>
  },
): Promise<{ id: string; webhook_address?: string }> {
  const agent = await call(service, 'POST', '/v1/agents', {
    name: `bench ${options.trigger} ${Date.now()}`,
    inputs: [{ name: 'title', type: 'string' }],
    kind: 'steps',
    steps: [
      {
        key: 'noop',
        tool: options.step.tool,
        integration: options.integration,
        input: options.step.input,
        condition: 'false',
      },
    ],
  })
  const sub = await call(service, 'POST', `/v1/agents/${agent.id}/subscriptions`, {
    trigger: options.trigger,
    integration: options.integration,
    config: options.config,
    mapping: options.mapping,
    ...options.extra,
  })
  return call(service, 'POST', `/v1/subscriptions/${sub.id}/activate`)
}
