import type { z } from 'zod'
import type { Plan } from '../store/schema.ts'
import type { OptionsSource, ToolContext } from '../tools/define.ts'

export type TriggerMode = 'instant' | 'polled'

/** A platform event as mappings read it: normalised by its trigger (a card event gives card, list, board, member). */
export type TriggerEvent = Record<string, unknown>

/** One delivery as it reached the intake: the raw bytes are what signatures cover. */
export interface Delivery {
  rawBody: Buffer
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>
  /** The address the platform was told to call, as stored: never rebuilt from the request's Host. */
  callbackUrl: string
}

/** Something that happened on the platform, split out of a verified delivery (or found by a poll). */
export interface EventCandidate {
  /** Unique within its source (a remote webhook, or a polled subscription): a second one is a duplicate. */
  dedupeKey: string
  /** What happened, in the platform's words (a Trello action type, a Zendesk event type). */
  type: string
  /** The platform's own payload for this one event; triggers normalise it. */
  raw: unknown
  /** Who on the platform caused it, where the platform says: the loop guard compares it with the integration's own account. */
  actorId?: string
}

export type Verification = 'valid' | 'invalid' | 'unverifiable'

/**
 * How a platform's webhooks work, once per platform: every instant trigger of the platform shares it.
 * `managed` platforms get their remote webhook created by Switchyard, one per (integration, model),
 * shared by every subscription that watches that model; unmanaged ones (the user pastes Switchyard's
 * address into the platform's settings) get one address per subscription.
 */
export interface WebhookFacts {
  managed: boolean
  /**
   * How long after an event the platform may still deliver it again (its retries). Events are the
   * dedupe records, so they are kept at least this long (core/retention/policy.ts): a retry that
   * arrives later than the record would start its runs a second time.
   */
  retryWindowMs: number
  /**
   * Creates the remote webhook; an "already exists" answer is adopted, not an error. A set-up of
   * several calls calls `created` with the id as soon as the webhook exists, so one of the later calls
   * failing leaves a webhook Switchyard knows to remove rather than an orphan.
   */
  subscribe?(
    ctx: ToolContext,
    hook: {
      modelKey: string
      callbackUrl: string
      description: string
      created?: (remoteId: string) => Promise<void>
    },
  ): Promise<{ remoteId: string; secret?: string }>
  /** Deletes it; a webhook that is already gone counts as deleted. */
  unsubscribe?(ctx: ToolContext, remoteId: string): Promise<void>
  /** Whether the remote webhook is still there (a subscription's health, checked live). */
  exists?(ctx: ToolContext, remoteId: string): Promise<boolean>
  /**
   * Checks the delivery's signature in constant time. `hookSecret` is what the platform gave for this
   * webhook (or the user pasted); `appSecret` is the app's own secret where the platform signs with it.
   * 'unverifiable' means no secret is known: the delivery is then confirmed with `confirm`, or refused.
   */
  verify(delivery: Delivery, secrets: { hookSecret?: string; appSecret?: string }): Promise<Verification>
  /**
   * Where no secret is known: asks the platform whether this event really happened, before anything
   * starts. Answers the event as the platform gave it back (the only part of an unsigned delivery to
   * believe), or null when the platform does not have it.
   */
  confirm?(ctx: ToolContext, candidate: EventCandidate): Promise<EventCandidate | null>
  /** Splits a verified delivery into events; throws invalid_input for a body that is not the platform's shape. */
  parse(delivery: Delivery): EventCandidate[]
  /**
   * Unmanaged platforms without a test button of their own: the headers the platform would send
   * with `rawBody`, signed with the webhook's secret as the platform signs. "Send sample event"
   * posts a trigger's `sampleBody` with them to the subscription's own address.
   */
  signSample?(rawBody: Buffer, secret: string): Record<string, string>
}

/** Where a polled trigger left off: its own JSON, committed in the same transaction as the runs it started. */
export type PollCursor = Record<string, unknown> | null

export interface PollResult {
  events: Array<{ candidate: EventCandidate; event: TriggerEvent }>
  cursor: PollCursor
}

export interface TriggerDefinition<C extends z.ZodType = z.ZodType> {
  /** `<platform>.<snake_case>`, like a tool step's id. */
  id: string
  title: string
  /** Other names people use for this event (a specification's or another product's), found by search. */
  alsoKnownAs?: string[]
  description: string
  mode: TriggerMode
  /** What a subscription configures (boards, lists, event types, a reminder offset…). */
  config: C
  /** Where the config's id fields take their options: the same mechanism as tool step inputs (docs/tool-options.md). */
  configOptions?: Record<string, OptionsSource>
  /** The normalised event it emits: the fields offered for mapping. */
  event: z.ZodType
  /** A realistic event, for mapping previews and tests before any real one arrived. */
  sample: TriggerEvent
  requiredPlan?: Plan
  /** Instant: the models whose remote webhooks this subscription needs (for example its boards). */
  models?(config: z.output<C>): string[]
  /** Instant: the normalised event when this trigger fires for the candidate under `config`, else null. Pure and fast: it runs in the intake. */
  match?(candidate: EventCandidate, config: z.output<C>): TriggerEvent | null
  /** Polled: what happened since `cursor`. The first poll (cursor null) sets a cursor and starts nothing from the past. */
  poll?(ctx: ToolContext, config: z.output<C>, cursor: PollCursor, now: number): Promise<PollResult>
  /** Instant, on unmanaged platforms: the platform's event names a person ticks when adding the webhook by hand. */
  webhookEvents?: string[]
  /**
   * Instant, on platforms with `signSample`: a realistic delivery body, as the platform would send
   * it, that fires this trigger under `config`; a fresh event id each call, so it is never a duplicate.
   */
  sampleBody?(config: z.output<C>): unknown
  /**
   * Instant: fills in what the platform's delivery leaves out, before the event is mapped (a platform
   * that names people by id only). Asked through the integration while the delivery waits, and only
   * for subscriptions whose mapping reads under one of `paths`: the others map at once. When it fails,
   * the event is mapped as delivered and the run says why its inputs fell short.
   */
  enrich?: { paths: string[]; run(ctx: ToolContext, event: TriggerEvent): Promise<TriggerEvent> }
  /** Recent real events that match, newest first, for a subscription's test; empty when the platform keeps none. */
  recent?(ctx: ToolContext, config: z.output<C>): Promise<TriggerEvent[]>
}

export type AnyTrigger = TriggerDefinition<z.ZodType>

/** Identity function that gives a declaration its types; declarations are data (docs/architecture.md, "Layout"). */
export function defineTrigger<C extends z.ZodType>(trigger: TriggerDefinition<C>): AnyTrigger {
  return trigger as unknown as AnyTrigger
}
