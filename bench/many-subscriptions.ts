import os from 'node:os'
import { seedManySubscriptions } from '../test/helpers/many-subscriptions.ts'
import { trelloDeliveries } from './deliveries/trello.ts'
import { startServiceStack } from './service-stack.ts'
import { platformBench } from './triggers.ts'

// Many subscriptions (issue 22, sections 7 and 9): Trello intake and trigger latency on a store that
// also holds 1,000 integrations with 10,000 active subscriptions, against the same on a store with
// only the measured one, on the embedded store and, when BENCH_DATABASE_URL names a server, on
// PostgreSQL. Goal: within 1.5× of one subscription. The large store is written straight into the
// tables (test/helpers/many-subscriptions.ts) and not analyzed: the service meets it as it was left.
// `node --import tsx bench/many-subscriptions.ts`; `npm run bench` runs it too.

const round = (n: number) => Math.round(n * 1000) / 1000

async function onStore(kind: 'pglite' | 'postgres', many: boolean): Promise<Record<string, number>> {
  const stack = await startServiceStack(kind, {
    name: 'many',
    seed: many
      ? (db) => seedManySubscriptions(db, { integrations: 1_000, perWebhook: 10, tag: 'many' })
      : undefined,
  })
  try {
    return await platformBench(stack, stack.sandboxUrl, trelloDeliveries, kind)
  } finally {
    await stack.stop()
  }
}

export async function manySubscriptionsBench(): Promise<Record<string, number>> {
  const stores: Array<'pglite' | 'postgres'> = [
    'pglite',
    ...(process.env.BENCH_DATABASE_URL ? ['postgres' as const] : []),
  ]
  // The machine is shared: its load when the line began says how far to trust the numbers.
  const results: Record<string, number> = {
    many_subscriptions_load_average: Math.round(os.loadavg()[0]! * 100) / 100,
  }
  for (const kind of stores) {
    const one = await onStore(kind, false)
    const many = await onStore(kind, true)
    const key = `trello_${kind}`
    const intakeOne = one[`intake_${key}_per_s`]!
    const intakeMany = many[`intake_${key}_per_s`]!
    const p99One = one[`trigger_latency_${key}_p99_ms`]!
    const p99Many = many[`trigger_latency_${key}_p99_ms`]!
    Object.assign(results, {
      [`many_subscriptions_${kind}_intake_one_per_s`]: intakeOne,
      [`many_subscriptions_${kind}_intake_many_per_s`]: intakeMany,
      [`many_subscriptions_${kind}_intake_ratio`]: round(intakeMany / intakeOne),
      // Each against a bare server measured beside it: on a shared machine the load moves between
      // the two halves, and this ratio moves less with it.
      [`many_subscriptions_${kind}_intake_one_to_bare`]: one[`intake_${key}_ratio_to_bare`]!,
      [`many_subscriptions_${kind}_intake_many_to_bare`]: many[`intake_${key}_ratio_to_bare`]!,
      // CPU per delivery (service, and PostgreSQL's processes) moves least with the machine's load.
      [`many_subscriptions_${kind}_cpu_us_one`]:
        one[`intake_${key}_service_cpu_us_per_delivery`]! +
        (one[`intake_${key}_postgres_cpu_us_per_delivery`] ?? 0),
      [`many_subscriptions_${kind}_cpu_us_many`]:
        many[`intake_${key}_service_cpu_us_per_delivery`]! +
        (many[`intake_${key}_postgres_cpu_us_per_delivery`] ?? 0),
      [`many_subscriptions_${kind}_latency_p99_one_ms`]: p99One,
      [`many_subscriptions_${kind}_latency_p99_many_ms`]: p99Many,
      [`many_subscriptions_${kind}_latency_p99_ratio`]: round(p99Many / Math.max(p99One, 1)),
    })
    console.log(
      `many subscriptions on ${kind}: intake ${intakeMany}/s against ${intakeOne}/s (${round(intakeMany / intakeOne)}×), trigger latency p99 ${p99Many} ms against ${p99One} ms`,
    )
  }
  return results
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await manySubscriptionsBench())
