import { z } from 'zod'
import type { PlatformDefinition } from '../platforms/types.ts'
import type { Plan } from '../store/schema.ts'
import { searchByWords, wordsOf, type Haystack } from '../word-search.ts'
import type { AnyTrigger } from './define.ts'
import { declaredInputSchema } from '../validation.ts'

/** A trigger as REST, the CLI, MCP and the web app present it, beside the tool steps. */
export interface TriggerEntry {
  id: string
  title: string
  description: string
  platform: string
  kind: string
  mode: AnyTrigger['mode']
  configSchema: Record<string, unknown>
  eventSchema: Record<string, unknown>
  sample: Record<string, unknown>
  fieldOptions: Record<string, { dependsOn: string[] }>
  requiredPlan: Plan | null
  /**
   * Where a person adds the platform's webhook by hand (the platform's `managed` is false): the
   * event names to tick there, and whether "Send sample event" is offered. Null otherwise.
   */
  manualWebhook: { events: string[]; sendSample: boolean } | null
}

export interface RegisteredTrigger {
  trigger: AnyTrigger
  platform: PlatformDefinition
  entry: TriggerEntry
  haystack: Haystack
}

export class TriggerRegistry {
  private readonly byId = new Map<string, RegisteredTrigger>()

  constructor(platforms: PlatformDefinition[]) {
    for (const platform of platforms) {
      for (const trigger of platform.triggers) {
        if (this.byId.has(trigger.id)) throw new Error(`duplicate trigger id ${trigger.id}`)
        if (trigger.mode === 'instant' && (!platform.webhooks || !trigger.match))
          throw new Error(`${trigger.id}: an instant trigger needs its platform's webhooks and a match`)
        if (trigger.mode === 'polled' && !trigger.poll)
          throw new Error(`${trigger.id}: a polled trigger needs a poll`)
        const configSchema = declaredInputSchema(trigger.config)
        checkOptionFields(trigger, configSchema)
        this.byId.set(trigger.id, {
          trigger,
          platform,
          entry: {
            id: trigger.id,
            title: trigger.title,
            description: trigger.description,
            platform: platform.id,
            kind: platform.kind,
            mode: trigger.mode,
            configSchema,
            eventSchema: z.toJSONSchema(trigger.event, { io: 'output', unrepresentable: 'any' }) as Record<
              string,
              unknown
            >,
            sample: trigger.sample,
            fieldOptions: Object.fromEntries(
              Object.entries(trigger.configOptions ?? {}).map(([field, source]) => [
                field,
                { dependsOn: source.dependsOn ?? [] },
              ]),
            ),
            requiredPlan: trigger.requiredPlan ?? null,
            manualWebhook:
              trigger.mode === 'instant' && platform.webhooks?.managed === false
                ? {
                    events: trigger.webhookEvents ?? [],
                    sendSample: Boolean(platform.webhooks.signSample && trigger.sampleBody),
                  }
                : null,
          },
          haystack: [
            { words: wordsOf(trigger.title), weight: 8 },
            { words: wordsOf((trigger.alsoKnownAs ?? []).join(' ')), weight: 6 },
            { words: wordsOf(`${platform.id} ${platform.title}`), weight: 4 },
            { words: wordsOf(platform.kind), weight: 4 },
            { words: wordsOf(trigger.id), weight: 2 },
            { words: wordsOf(trigger.description), weight: 1 },
          ],
        })
      }
    }
  }

  get(id: string): RegisteredTrigger | undefined {
    return this.byId.get(id)
  }

  list(): TriggerEntry[] {
    return [...this.byId.values()].map((t) => t.entry)
  }

  /** The search bar's logic (core/word-search.ts): "board" finds every Trello trigger, "card moved" one. */
  search(query: string): TriggerEntry[] {
    return (
      searchByWords(
        [...this.byId.values()].map((t) => ({ item: t.entry, haystack: t.haystack, id: t.entry.id })),
        query,
      ) ?? this.list()
    )
  }
}

function checkOptionFields(trigger: AnyTrigger, schema: { properties?: Record<string, unknown> }) {
  const fields = Object.keys(schema.properties ?? {})
  for (const [field, source] of Object.entries(trigger.configOptions ?? {})) {
    for (const name of [field, ...(source.dependsOn ?? [])]) {
      if (!fields.includes(name))
        throw new Error(`${trigger.id}: options name ${name}, which is not a configuration field`)
    }
  }
}
