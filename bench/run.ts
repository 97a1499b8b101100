import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Agent, request } from 'undici'
import { Users } from '../src/core/access/users.ts'
import { openStore } from '../src/core/store/database.ts'
import { scratchDatabase } from '../test/helpers/scratch-database.ts'
import { connectZendesk } from '../test/helpers/connect.ts'
import { connectVercel, VERCEL } from '../test/helpers/vercel.ts'
import { hostileTemplatesBench } from './hostile-templates.ts'
import { manySubscriptionsBench } from './many-subscriptions.ts'
import { noisyNeighbourBench } from './noisy-neighbour.ts'
import { oldInstallationBench } from './old-installation.ts'
import { mcpLatencies } from './mcp.ts'
import { modelAgentsBench } from './model-agents.ts'
import { connectFreshToken, measureUtilisation } from './rate-budget.ts'
import { interleavedLatencies, percentile, throughput } from './measure.ts'
import { freePort, startChild } from './processes.ts'
import { TRIGGER_PLATFORMS, triggerBench } from './triggers.ts'

// Get Ticket Info through Switchyard against the same two requests sent straight to the sandbox,
// measured in one run on this machine. Only ratios and differences are meaningful.
const LATENCY_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 600)
const LATENCY_PASSES = 3 // before the first and third throughput phases, and after the last
const WARMUP_ROUNDS = 50
const CONCURRENCY = 32
const THROUGHPUT_MS = Number(process.env.BENCH_THROUGHPUT_MS ?? 16_000)
const THROUGHPUT_PHASES = 4
const BUDGET_AGENTS = [1, 4, 16]
const BUDGET_MS = Number(process.env.BENCH_BUDGET_MS ?? 30_000)
const BARE_PROXY = path.join(import.meta.dirname, 'bare-proxy.ts')

const dispatcher = new Agent({ connections: 64, keepAliveTimeout: 30_000 })

async function fetchOk(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<void> {
  const res = await request(url, { ...init, dispatcher } as any)
  await res.body.text()
  if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`)
}

/**
 * The lines that run on services (or stores) of their own, after the main run's service has stopped:
 * many subscriptions (both stores), a noisy neighbour and an old installation (issue 22, §9).
 */
async function ownServiceLines(only?: string): Promise<Record<string, number>> {
  process.env.BENCH_DATABASE_URL ??= process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL
  const results: Record<string, number> = {}
  if (!only || only === 'many') Object.assign(results, await manySubscriptionsBench())
  if (!only || only === 'noisy') Object.assign(results, await noisyNeighbourBench())
  if (!only || only === 'old') Object.assign(results, await oldInstallationBench())
  if (!only || only === 'model') Object.assign(results, await modelAgentsBench())
  return results
}

/** One of the lines above alone, measured again into the last full run's results (BENCH_ONLY=many|noisy|old). */
async function onlyOwnServiceLine(only: string) {
  const last = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'results.json'), 'utf8'))
  writeResults({ ...last, ...(await ownServiceLines(only)) })
}

/** How long the embedded default is left alone after it starts before its memory is read. */
const MEMORY_IDLE_MS = Number(process.env.BENCH_MEMORY_IDLE_MS ?? 20_000)

/**
 * The embedded default as \`npm start\` runs it (issue 24, §8): the service with its own sandboxes
 * in process, on PGlite in a new data directory, left idle after it starts. Its resident memory is
 * the median of five readings a second apart.
 */
async function embeddedDefaultMemory(): Promise<Record<string, number>> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-memory-'))
  const service = await startChild(
    ['start'],
    {
      PORT: String(await freePort()),
      SWITCHYARD_SANDBOX_PORT: String(await freePort()),
      SWITCHYARD_DATA_DIR: dataDir,
      // Its own sandboxes and store, whatever this shell has set.
      SWITCHYARD_SANDBOX_URL: '',
      DATABASE_URL: '',
      LOG_LEVEL: 'warn',
    },
    /Switchyard is running at (\S+)/,
  )
  try {
    await new Promise((resolve) => setTimeout(resolve, MEMORY_IDLE_MS))
    const readings: number[] = []
    for (let i = 0; i < 5; i++) {
      readings.push(service.rss())
      await new Promise((resolve) => setTimeout(resolve, 1000))
    }
    return { embedded_default_rss_idle_mib: round(percentile(readings, 50) / 2 ** 20) }
  } finally {
    await service.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

/** BENCH_ONLY=memory: the line above alone, measured again into the last full run's results. */
async function onlyMemoryLine() {
  const last = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'results.json'), 'utf8'))
  const memory = await embeddedDefaultMemory()
  console.log(memory)
  writeResults({ ...last, ...memory })
}

async function main() {
  // First, on a machine no other part of the bench is using yet (not needed by a line measured alone).
  const memory = process.env.BENCH_ONLY ? {} : await embeddedDefaultMemory()
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-'))
  const sandboxPort = await freePort()
  const servicePort = await freePort()
  const sandbox = await startChild(['sandbox', '--port', String(sandboxPort)], {}, /listening on (\S+)/)
  const sandboxUrl = sandbox.match[1]
  const service = await startChild(
    ['start'],
    {
      PORT: String(servicePort),
      SWITCHYARD_DATA_DIR: dataDir,
      SWITCHYARD_SANDBOX_URL: sandboxUrl,
      LOG_LEVEL: 'warn',
    },
    /Switchyard is running at (\S+)/,
  )
  const url = service.match[1]
  let bareProxy: Awaited<ReturnType<typeof startChild>> | undefined
  let measured: Record<string, number> = {}
  try {
    const apiKey = fs.readFileSync(path.join(dataDir, 'admin-api-key'), 'utf8').trim()
    const integration = (await connectZendesk({ url, apiKey })).integrationId!
    const token = (
      (await (
        await fetch(`${sandboxUrl}/zendesk/_control/accounts/acme/tokens`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'admin@acme.test' }),
        })
      ).json()) as any
    ).access_token as string
    const base = `${sandboxUrl}/zendesk/acme/api/v2`
    const auth = { authorization: `Bearer ${token}` }
    const created = (await (
      await fetch(`${base}/tickets.json`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ ticket: { subject: 'bench', comment: { body: 'first' } } }),
      })
    ).json()) as any
    const ticketId = created.ticket.id as number
    for (let i = 0; i < 5; i++) {
      await fetch(`${base}/tickets/${ticketId}.json`, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ ticket: { comment: { body: `c${i}`, public: false } } }),
      })
    }
    // The same two requests the step makes, in parallel as it makes them (with the people sideloaded).
    const direct = async () => {
      await Promise.all([
        fetchOk(`${base}/tickets/${ticketId}.json?include=users`, { headers: auth }),
        fetchOk(`${base}/tickets/${ticketId}/comments.json?page%5Bsize%5D=100&include=users`, {
          headers: auth,
        }),
      ])
    }
    const runBody = JSON.stringify({ integration, input: { ticket_id: ticketId } })
    const viaSwitchyard = () =>
      fetchOk(`${url}/v1/tools/zendesk.get_ticket/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: runBody,
      })

    // The sandbox's own rate limit (700/min on acme's plan) would throttle a benchmark; lift it.
    await fetch(`${sandboxUrl}/zendesk/_control/accounts/acme`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rate_limit_per_minute: 10_000_000 }),
    }).then((r) => {
      if (!r.ok) throw new Error('could not lift the sandbox rate limit')
    })

    if (process.env.BENCH_ONLY === 'hostile') {
      // Only the hostile-templates line, measured again into the last full run's results.
      const last = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'results.json'), 'utf8'))
      writeResults({ ...last, ...(await hostileTemplatesBench({ url, apiKey, pid: service.process.pid })) })
      return
    }
    if (process.env.BENCH_ONLY === 'mcp') {
      // Only the MCP line, measured again into the last full run's results (BENCH_ONLY=mcp).
      const last = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'results.json'), 'utf8'))
      const rounds = Math.min(LATENCY_ROUNDS, 300)
      const mcp = await mcpLatencies({
        url,
        apiKey,
        integration,
        ticketId,
        rounds,
        warmup: WARMUP_ROUNDS,
        dispatcher,
        pid: service.process.pid!,
      })
      console.log(mcp)
      writeResults({ ...last, ...mcp })
      return
    }

    // The hop alone: an empty answer from the same service, the part of the added latency that any
    // service between an agent and the platform adds before doing any work.
    const hop = () => fetchOk(`${url}/health`)
    // And the least a service in this stack can do for the call (see bare-proxy.ts).
    bareProxy = await startChild(
      [],
      { PORT: String(await freePort()), BARE_PROXY_UPSTREAM: base, BARE_PROXY_TOKEN: token },
      /bare proxy listening on (\S+)/,
      BARE_PROXY,
    )
    const bareBody = JSON.stringify({ ticket_id: ticketId })
    const viaBareProxy = () =>
      fetchOk(`${bareProxy!.match[1]}/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: bareBody,
      })
    const contenders = { direct, viaSwitchyard, hop, viaBareProxy }
    await interleavedLatencies(WARMUP_ROUNDS, contenders)
    const rssIdleBytes = service.rss()
    // Latency in passes spread through the run, between throughput phases: a busy spell of another
    // tenant of this shared machine then skews one pass, not the result, which is the median pass.
    const passes: Array<Record<keyof typeof contenders, number[]>> = []
    // Alternating phases, averaged: on a shared 2-core machine one long phase each would let
    // drift (another tenant, GC, CPU frequency) favour whichever side ran at the better moment.
    let rssPeakBytes = 0
    const directRuns: number[] = []
    const switchyardRuns: number[] = []
    const bareProxyRuns: number[] = []
    for (let phase = 0; phase < THROUGHPUT_PHASES; phase++) {
      if (phase === 0 || phase === THROUGHPUT_PHASES / 2)
        passes.push(await interleavedLatencies(LATENCY_ROUNDS, contenders))
      const sampler = setInterval(() => {
        rssPeakBytes = Math.max(rssPeakBytes, service.rss())
      }, 100)
      directRuns.push(await throughput(CONCURRENCY, THROUGHPUT_MS / THROUGHPUT_PHASES, direct))
      switchyardRuns.push(await throughput(CONCURRENCY, THROUGHPUT_MS / THROUGHPUT_PHASES, viaSwitchyard))
      bareProxyRuns.push(await throughput(CONCURRENCY, THROUGHPUT_MS / THROUGHPUT_PHASES, viaBareProxy))
      clearInterval(sampler)
    }
    passes.push(await interleavedLatencies(LATENCY_ROUNDS, contenders))
    const directRps = mean(directRuns)
    const switchyardRps = mean(switchyardRuns)
    const bareProxyRps = mean(bareProxyRuns)
    const p50 = (pass: (typeof passes)[number], name: keyof typeof contenders) => percentile(pass[name], 50)
    const added = passes.map((pass) => p50(pass, 'viaSwitchyard') - p50(pass, 'direct'))
    const median = passes[medianIndex(added)]
    const pooled = (name: keyof typeof contenders) => passes.flatMap((pass) => pass[name])

    const results = {
      latency_direct_p50_ms: round(p50(median, 'direct')),
      latency_direct_p99_ms: round(percentile(pooled('direct'), 99)),
      latency_switchyard_p50_ms: round(p50(median, 'viaSwitchyard')),
      latency_switchyard_p99_ms: round(percentile(pooled('viaSwitchyard'), 99)),
      added_latency_p50_ms: round(p50(median, 'viaSwitchyard') - p50(median, 'direct')),
      added_latency_p50_min_ms: round(Math.min(...added)),
      added_latency_p50_max_ms: round(Math.max(...added)),
      added_latency_p99_ms: round(percentile(pooled('viaSwitchyard'), 99) - percentile(pooled('direct'), 99)),
      hop_latency_p50_ms: round(p50(median, 'hop')),
      added_latency_bare_proxy_p50_ms: round(p50(median, 'viaBareProxy') - p50(median, 'direct')),
      throughput_direct_rps: round(directRps),
      throughput_switchyard_rps: round(switchyardRps),
      throughput_ratio_at_32: round(switchyardRps / directRps),
      throughput_bare_proxy_rps: round(bareProxyRps),
      throughput_ratio_bare_proxy_at_32: round(bareProxyRps / directRps),
      ...memory,
      service_rss_idle_mib: round(rssIdleBytes / 2 ** 20),
      service_rss_under_load_mib: round(rssPeakBytes / 2 ** 20),
      latency_rounds: LATENCY_ROUNDS,
      latency_passes: LATENCY_PASSES,
      concurrency: CONCURRENCY,
    }
    const postgresUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL
    if (postgresUrl) {
      // A database of the bench's own on that server: runs left by an earlier bench would be
      // claimed first and their dead rows would slow the claims.
      const scratch = await scratchDatabase(postgresUrl, 'sy_bench')
      try {
        Object.assign(results, await onPostgres(scratch.url, sandboxUrl, ticketId, direct))
      } finally {
        await scratch.drop()
      }
    }

    Object.assign(
      results,
      await triggerBench({ url, apiKey, pid: service.process.pid }, sandboxUrl, 'pglite'),
    )
    Object.assign(results, await vercelLatencies(url, apiKey, sandboxUrl))
    Object.assign(results, await hostileTemplatesBench({ url, apiKey, pid: service.process.pid }))
    Object.assign(
      results,
      await mcpLatencies({
        url,
        apiKey,
        integration,
        ticketId,
        rounds: Math.min(LATENCY_ROUNDS, 300),
        warmup: WARMUP_ROUNDS,
        dispatcher,
        pid: service.process.pid!,
      }),
    )

    const agentKeys = [apiKey]
    for (let i = 1; i < Math.max(...BUDGET_AGENTS); i++) {
      const created = (await (
        await fetch(`${url}/v1/api-keys`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `agent ${i}` }),
        })
      ).json()) as any
      agentKeys.push(created.key)
    }
    for (const agents of BUDGET_AGENTS) {
      const integration = await connectFreshToken(url, apiKey, sandboxUrl)
      const r = await measureUtilisation({
        serviceUrls: [url],
        agentKeys: agentKeys.slice(0, agents),
        integration,
        sandboxUrl,
        durationMs: BUDGET_MS,
      })
      Object.assign(results, {
        [`budget_utilisation_${agents}_agents`]: round(r.utilisation),
        [`budget_429s_${agents}_agents`]: r.sandbox429s,
        [`budget_completed_${agents}_agents`]: r.completed,
      })
      console.log(
        `rate budget, ${agents} agent(s): ${r.completed} in ${r.elapsedS} s, utilisation ${round(r.utilisation)}, ${r.sandbox429s} 429s`,
      )
    }
    if (postgresUrl) {
      const r = await utilisationAcrossTwoProcesses(postgresUrl, sandboxUrl, 16)
      Object.assign(results, {
        budget_utilisation_16_agents_2_processes: round(r.utilisation),
        budget_429s_16_agents_2_processes: r.sandbox429s,
      })
      console.log(
        `rate budget, 16 agents over 2 processes on PostgreSQL: utilisation ${round(r.utilisation)}, ${r.sandbox429s} 429s`,
      )
    }
    writeResults(results)
    measured = results
  } finally {
    await bareProxy?.stop()
    await service.stop()
    await sandbox.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
  // The lines with services or stores of their own, one at a time once the main service is gone.
  const all = { ...measured, ...(await ownServiceLines()) }
  writeResults(all)
  console.log(JSON.stringify(all, null, 2))
}

const round = (n: number) => Math.round(n * 1000) / 1000
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
/** Index of the median value (the lower one of an even count). */
const medianIndex = (xs: number[]) =>
  xs.map((x, i) => [x, i]).sort((a, b) => a[0] - b[0])[Math.floor((xs.length - 1) / 2)][1]

/** Create Deployment and List Deployments through Switchyard against the same requests sent direct. */
async function vercelLatencies(
  url: string,
  apiKey: string,
  sandboxUrl: string,
): Promise<Record<string, number>> {
  const control = `${sandboxUrl}/vercel/_control`
  await fetch(`${control}/rate-limits`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ disabled: true }),
  })
  const integration = (await connectVercel({ url, apiKey })).integrationId!
  const token = (
    (await (
      await fetch(`${control}/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user: VERCEL.user.username }),
      })
    ).json()) as any
  ).token as string
  const direct = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  const viaSwitchyard = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }
  const project = VERCEL.personalProject.name
  const contenders = {
    createDirect: () =>
      fetchOk(`${sandboxUrl}/vercel/v13/deployments`, {
        method: 'POST',
        headers: direct,
        body: JSON.stringify({ name: project, project }),
      }),
    createViaSwitchyard: () =>
      fetchOk(`${url}/v1/tools/vercel.create_deployment/run`, {
        method: 'POST',
        headers: viaSwitchyard,
        body: JSON.stringify({ integration, input: { project } }),
      }),
    listDirect: () => fetchOk(`${sandboxUrl}/vercel/v6/deployments?limit=20`, { headers: direct }),
    listViaSwitchyard: () =>
      fetchOk(`${url}/v1/tools/vercel.list_deployments/run`, {
        method: 'POST',
        headers: viaSwitchyard,
        body: JSON.stringify({ integration, input: { limit: 20 } }),
      }),
  }
  await interleavedLatencies(WARMUP_ROUNDS, contenders)
  const samples = await interleavedLatencies(Math.min(LATENCY_ROUNDS, 200), contenders)
  const p50 = (name: keyof typeof contenders) => percentile(samples[name], 50)
  return {
    vercel_create_direct_p50_ms: round(p50('createDirect')),
    vercel_create_switchyard_p50_ms: round(p50('createViaSwitchyard')),
    vercel_create_added_p50_ms: round(p50('createViaSwitchyard') - p50('createDirect')),
    vercel_list_direct_p50_ms: round(p50('listDirect')),
    vercel_list_switchyard_p50_ms: round(p50('listViaSwitchyard')),
    vercel_list_added_p50_ms: round(p50('listViaSwitchyard') - p50('listDirect')),
  }
}

/** Two service processes on one PostgreSQL database share one token's budget. */
async function utilisationAcrossTwoProcesses(databaseUrl: string, sandboxUrl: string, agents: number) {
  const store = await openStore({ databaseUrl })
  const users = new Users(store.db)
  const user = await users.create({ email: `bench-${Date.now()}@example.test`, plan: 'enterprise' })
  const keys: string[] = []
  for (let i = 0; i < agents; i++) keys.push((await users.createApiKey(user.id, `agent ${i}`)).key)
  await store.close()
  const env = {
    DATABASE_URL: databaseUrl,
    SWITCHYARD_SANDBOX_URL: sandboxUrl,
    SWITCHYARD_ENCRYPTION_KEY: '22'.repeat(32),
    LOG_LEVEL: 'warn',
  }
  const services = await Promise.all(
    [0, 1].map(async () =>
      startChild(
        ['start'],
        {
          ...env,
          PORT: String(await freePort()),
          SWITCHYARD_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-pg-')),
        },
        /Switchyard is running at (\S+)/,
      ),
    ),
  )
  try {
    const urls = services.map((s) => s.match[1])
    const integration = await connectFreshToken(urls[0], keys[0], sandboxUrl)
    return await measureUtilisation({
      serviceUrls: urls,
      agentKeys: keys,
      integration,
      sandboxUrl,
      durationMs: BUDGET_MS,
    })
  } finally {
    await Promise.all(services.map((s) => s.stop()))
  }
}

/**
 * The same service on PostgreSQL, as instances run at scale: its memory without embedded PGlite's,
 * and Get Ticket Info against the same direct requests, so that a cost only PostgreSQL pays shows.
 */
async function onPostgres(
  databaseUrl: string,
  sandboxUrl: string,
  ticketId: number,
  direct: () => Promise<void>,
): Promise<Record<string, number>> {
  const store = await openStore({ databaseUrl })
  const users = new Users(store.db)
  const user = await users.create({ email: `bench-${Date.now()}@example.test`, plan: 'enterprise' })
  const apiKey = (await users.createApiKey(user.id, 'bench')).key
  await store.close()
  const service = await startChild(
    ['start'],
    {
      PORT: String(await freePort()),
      DATABASE_URL: databaseUrl,
      SWITCHYARD_SANDBOX_URL: sandboxUrl,
      SWITCHYARD_ENCRYPTION_KEY: '22'.repeat(32),
      LOG_LEVEL: 'warn',
      SWITCHYARD_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-pg-')),
    },
    /Switchyard is running at (\S+)/,
  )
  try {
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const rssIdleBytes = service.rss()
    const url = service.match[1]
    const integration = (await connectZendesk({ url, apiKey })).integrationId!
    const body = JSON.stringify({ integration, input: { ticket_id: ticketId } })
    const viaPostgres = () =>
      fetchOk(`${url}/v1/tools/zendesk.get_ticket/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body,
      })
    await interleavedLatencies(WARMUP_ROUNDS, { direct, viaPostgres })
    const latencies = await interleavedLatencies(LATENCY_ROUNDS, { direct, viaPostgres })
    const directRuns: number[] = []
    const postgresRuns: number[] = []
    for (let phase = 0; phase < THROUGHPUT_PHASES; phase++) {
      directRuns.push(await throughput(CONCURRENCY, THROUGHPUT_MS / THROUGHPUT_PHASES, direct))
      postgresRuns.push(await throughput(CONCURRENCY, THROUGHPUT_MS / THROUGHPUT_PHASES, viaPostgres))
    }
    const triggers = await triggerBench({ url, apiKey, pid: service.process.pid }, sandboxUrl, 'postgres')
    return {
      ...triggers,
      service_rss_idle_postgres_mib: round(rssIdleBytes / 2 ** 20),
      added_latency_postgres_p50_ms: round(
        percentile(latencies.viaPostgres, 50) - percentile(latencies.direct, 50),
      ),
      throughput_ratio_postgres_at_32: round(mean(postgresRuns) / mean(directRuns)),
    }
  } finally {
    await service.stop()
  }
}

/** One row per platform and store the trigger bench measured (stores without results are left out). */
function triggerRows(results: Record<string, number>): string {
  const stores = [
    ['pglite', 'PGlite (embedded, on disk)', '≥ 2,000 /s'],
    ['postgres', 'PostgreSQL', '≥ 5,000 /s'],
  ] as const
  const names: Record<string, string> = { trello: 'Trello', zendesk: 'Zendesk', vercel: 'Vercel' }
  return TRIGGER_PLATFORMS.flatMap(({ platform }) =>
    stores
      .filter(([store]) => results[`intake_${platform}_${store}_per_s`] !== undefined)
      .map(([store, name, goal]) => {
        const key = `${platform}_${store}`
        const database =
          store === 'postgres'
            ? ` + ${results[`intake_${key}_postgres_cpu_us_per_delivery`]} µs`
            : ' (database included)'
        const senders = results[`intake_${key}_senders_cpu_us_per_delivery`]
        return `| ${names[platform]} | ${name} | ${results[`intake_${key}_per_s`]} /s | ${results[`intake_bare_server_per_s_${key}_run`]} /s | ${goal} | ${results[`intake_${key}_service_cpu_us_per_delivery`]} µs${database} | ${senders === undefined ? '' : `${senders} µs`} | ${(results[`trigger_backlog_${key}_drained_ms`]! / 1000).toFixed(1)} s | ${results[`trigger_latency_${key}_p50_ms`]} ms | ${results[`trigger_latency_${key}_p99_ms`]} ms | ≤ 20 ms, ≤ 100 ms |`
      }),
  ).join('\n')
}

/** The many-subscriptions table's rows, one per store measured. */
function manyRows(results: Record<string, number>): string {
  return (['pglite', 'postgres'] as const)
    .filter((k) => results[`many_subscriptions_${k}_intake_ratio`] !== undefined)
    .map(
      (k) =>
        `| ${k === 'pglite' ? 'PGlite (embedded, on disk)' : 'PostgreSQL'} | ${results[`many_subscriptions_${k}_intake_one_per_s`]} /s (${results[`many_subscriptions_${k}_intake_one_to_bare`] ?? '?'}) | ${results[`many_subscriptions_${k}_intake_many_per_s`]} /s (${results[`many_subscriptions_${k}_intake_many_to_bare`] ?? '?'}) | ${results[`many_subscriptions_${k}_intake_ratio`]} | ${results[`many_subscriptions_${k}_cpu_us_one`] ?? '?'} → ${results[`many_subscriptions_${k}_cpu_us_many`] ?? '?'} µs | ${results[`many_subscriptions_${k}_latency_p99_one_ms`]} ms | ${results[`many_subscriptions_${k}_latency_p99_many_ms`]} ms | ${results[`many_subscriptions_${k}_latency_p99_ratio`]} | intake ≥ 0.67, p99 ≤ 1.5 |`,
    )
    .join('\n')
}

function writeResults(results: Record<string, number>) {
  const postgresRows =
    results.service_rss_idle_postgres_mib === undefined
      ? ''
      : [
          `| p50 latency, Switchyard on PostgreSQL instead of PGlite | | | +${results.added_latency_postgres_p50_ms} ms | | |`,
          `| throughput at ${results.concurrency} concurrent, Switchyard on PostgreSQL | | | ${results.throughput_ratio_postgres_at_32} | | |`,
          `| service RSS on PostgreSQL instead of PGlite | idle ${results.service_rss_idle_postgres_mib} MiB | | | | |`,
        ].join('\n') + '\n'
  const dir = import.meta.dirname
  fs.writeFileSync(path.join(dir, 'results.json'), JSON.stringify(results, null, 2) + '\n')
  const md = `# Benchmarks

Produced by \`npm run bench\` (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, Node ${process.version}).
Numbers are from one run on a shared machine: compare the ratios and differences, not the absolute values.

## Get Ticket Info: through Switchyard against straight to the sandbox

Switchyard (\`switchyard start\`, embedded PGlite on disk) and the sandbox (\`switchyard sandbox\`) run as separate
processes. "Direct" sends the same two requests the step makes (ticket and comments, in parallel) straight to the
sandbox with a token; "through Switchyard" is \`POST /v1/tools/zendesk.get_ticket/run\` with an API key, which adds
caller authentication, integration lookup, the credential, input and output validation and the rate gate.
The service runs with \`LOG_LEVEL=warn\`, so it writes no log line per request.
"A bare proxy" (\`bench/bare-proxy.ts\`) is the least any service in this stack can do for the same call:
Fastify takes it, undici's dispatcher sends the same two requests with a fixed token (as Switchyard's
client does), and the answers are parsed and returned, with no authentication, integration, budget or validation. It shows what being a Node
service in the middle costs on this machine, before any of Switchyard's own work.

| measure | direct | through Switchyard | difference or ratio | a bare proxy, for scale | goal |
|---|---|---|---|---|---|
| p50 latency, the median of ${results.latency_passes} passes (each ${results.latency_rounds} sequential calls of every contender, in a random order per round) | ${results.latency_direct_p50_ms} ms | ${results.latency_switchyard_p50_ms} ms | +${results.added_latency_p50_ms} ms (passes: ${results.added_latency_p50_min_ms} to ${results.added_latency_p50_max_ms}) | +${results.added_latency_bare_proxy_p50_ms} ms | ≤ 1 ms added |
| p99 latency, all passes together | ${results.latency_direct_p99_ms} ms | ${results.latency_switchyard_p99_ms} ms | +${results.added_latency_p99_ms} ms | | |
| p50 of the hop alone (\`GET /health\` on the service) | | ${results.hop_latency_p50_ms} ms | | | |
| throughput at ${results.concurrency} concurrent | ${results.throughput_direct_rps} /s | ${results.throughput_switchyard_rps} /s | ${results.throughput_ratio_at_32} | ${results.throughput_ratio_bare_proxy_at_32} | ≥ 0.5 |
| service RSS (embedded PGlite), after the latency warm-up | idle ${results.service_rss_idle_mib} MiB | under load ${results.service_rss_under_load_mib} MiB | | | |
${results.embedded_default_rss_idle_mib === undefined ? '' : `| RSS of the embedded default as \`npm start\` runs it (its own sandboxes in process), idle ${MEMORY_IDLE_MS / 1000} s after start | | ${results.embedded_default_rss_idle_mib} MiB | | | ≤ 250 MiB |\n`}${postgresRows}
## Triggers: webhook intake and the time to a run

\`bench/triggers.ts\`, once per platform: a Trello subscription (New Card), a Zendesk one (New Ticket)
and a Vercel one (Deployment Failed), each attached to an agent whose one step is skipped (its condition
is false), so each run starts and ends without a platform call. Deliveries shaped and signed as each
platform sends them (\`bench/deliveries/\`; Trello: HMAC-SHA1 over body and address, Zendesk: HMAC-SHA256
over timestamp and body, Vercel: HMAC-SHA1 over the body), each a new event, are posted to the
subscription's webhook address by 128 concurrent senders (wrk, \`bench/senders.ts\`) for 8 s; an answer of 200 means the event and
its run are committed. The deliveries are made and signed before the timed phase, since signing is the
platform's work on its own machines. "A bare server" is a Node HTTP server that reads each body and
answers 200 with no verification or storage: the most any intake could take on this machine in the same
run, with the same deliveries. "CPU per delivery" is the CPU time the service's process (and, on
PostgreSQL, the database's processes) used during the phase, divided by the deliveries acknowledged:
throughput here varies by a third between runs of the same code, CPU per delivery much less, so it is
the number to compare between changes. "Backlog drained" is how long the worker then took to finish the
runs the phase queued. The latency is from sending a delivery to its run's \`started_at\` (the worker's
claim), at a steady 200 deliveries a second, once that backlog is gone.

| platform | store | deliveries acknowledged durably | a bare server, for scale | goal | CPU per delivery: service + PostgreSQL | senders | backlog drained | trigger latency p50 | p99 | goal |
|---|---|---|---|---|---|---|---|---|---|---|
${triggerRows(results)}

Where the time goes. Senders, service and database share this machine's two cores, so the senders
are wrk, a load generator written in C (Debian's package \`wrk\`): measured alternately in one run,
Node's autocannon took about 110 µs of CPU per delivery and wrk about 13, and the intake rose by
about a third (before autocannon, undici's client took more still). There are 128 of them: the
deliveries of a batch are answered together, so with fewer the intake waited on their round trips
(medians of three alternating rounds: 64 senders 6,287 a second, 96 6,754, 128 6,741, 192 6,402).
Each batch of deliveries that arrive together is one statement, the database function
\`accept_events\` (\`core/triggers/accept.ts\`), which PostgreSQL plans once per connection: sent as a
statement of its own, PostgreSQL's log showed it parsed in 0.2 ms, planned in 0.7 ms and executed in
1.7 ms for a batch of about 32, and as a function the database's CPU per delivery fell from about 77
µs to 64 and the intake rose by about a sixth. Runs that end together share one statement too, with
their skipped steps (\`core/agents/run-state.ts\`). While a burst lasts, the worker claims runs at
most every 50 ms (docs/architecture.md, "The intake first"), so it drains most of the backlog after
the burst rather than during it: a run costs the database three row versions (queued, running,
ended) across the runs table's indexes, and paying for them between every batch of deliveries
halved the intake on PGlite (whose database shares the service's one thread). Since ids begin with
the time they were made (\`core/ids.ts\`), new keys go to the right-hand edge of the indexes, and the
database's CPU per delivery fell by about a seventh.

On PostgreSQL the service's one thread is now the bound: it was busy 0.8 to 0.97 of the time in a
burst (its event loop's utilisation), PostgreSQL used under half a core, and the WAL's flush is fast
here (63 µs, \`pg_test_fsync\`). Of the service's busy time, sampled during a Trello burst, writing the
HTTP answers takes about a fifth, the signature's HMAC a tenth, Fastify's routing and hooks with the
security headers an eighth, reading requests and parsing their JSON an eighth, the mapping templates
(JSONata) with the batch's JSON and the driver's protocol a fifth, and garbage collection, matching
and the rest the remainder. Two writes in flight at once, measured alternately with one
in the same run, were no faster. When the machine is busy with other work, each write takes longer
and the service waits on it: on the machine of the previous report (whose bare server answered
about 22,000 to 28,000 a second, against 38,000 to 47,000 on this one) the same code measured
anywhere from about 4,800 to 7,000 a second on PostgreSQL and 3,300 to 3,900 on PGlite. Compare
runs on different machines by the ratio to the bare server, not by the rate.

Measured again in full on 2026-11-29, the embedded store took about half as many deliveries a second
against the same bare server as in the full run of 2026-11-26 (a ratio of about 0.06 against 0.15;
the service's CPU per delivery about 380–400 µs against 150). Bisected on the Trello line with
\`bench/triggers-only.ts\`: it came with the work merged on 2026-11-27 for issue 22 (the cap on
waiting runs, the delivery records, the turns between owners on the store's one connection). Its
costliest part, a read of the owner for every delivery (about 780 µs a delivery), was gone the same
day; what remained (about 290 µs) was not measured in a full run until this one. One part of it is
found: the delivery log wrote every record of a burst, and its ring deleted all but each source's
newest 100 in the same flush. It now writes only those (\`core/triggers/delivery-log.ts\`); side by
side, the Trello line's database CPU per delivery on PostgreSQL went from 84–89 to 60–64 µs. The
rest is not found yet. The goals hold on both stores.

The latency phase starts once the burst's data is on disk (\`sync\`). Without that, the kernel wrote
the burst's dirty pages (about 120 MB) out about 30 s after the burst, inside the latency phase, and
each time a commit waited about 200 ms for it: p99 then measured that one stall, 160 to 330 ms in
five runs of six, rather than the steady pace. A deployment taking such bursts on a disk like this
one's would see the same. On PGlite, the embedded store's vacuum (docs/scaling.md) holds the
service's one thread while it runs. It used to run once a minute and, after a burst's runs, took
about 270 ms: when its turn fell in a latency phase, that phase's p99 measured the pause (Zendesk's
364 ms in an earlier report). It now runs in steps of 5,000 dead rows, checked each second, each
15 to 40 ms on this bench's runs table.

## Vercel: Create Deployment and List Deployments

The same requests straight to the sandbox with a token, and through Switchyard's steps (which add
the team scope, validation and the shared rate budget), ${Math.min(LATENCY_ROUNDS, 200)} interleaved sequential calls each.

| step | direct p50 | through Switchyard p50 | added |
|---|---|---|---|
| Create Deployment | ${results.vercel_create_direct_p50_ms} ms | ${results.vercel_create_switchyard_p50_ms} ms | +${results.vercel_create_added_p50_ms} ms |
| List Deployments (20) | ${results.vercel_list_direct_p50_ms} ms | ${results.vercel_list_switchyard_p50_ms} ms | +${results.vercel_list_added_p50_ms} ms |

## Get Ticket Info over MCP against the same step over REST

\`tools/call\` on \`/mcp\` (one JSON-RPC POST, as a Streamable HTTP client sends it once initialized; no
session: each POST borrows a kept MCP server and brings its caller, docs/mcp.md) against
\`POST /v1/tools/zendesk.get_ticket/run\` (\`bench/mcp.ts\`, \`BENCH_ONLY=mcp\`). Latency: ${results.mcp_passes}
passes of ${results.mcp_rounds} interleaved sequential calls each, the pass whose difference is the median
(the range is the passes'). CPU: the service's CPU time per call, all its threads, read from /proc around
blocks of 10 calls of one kind, a REST block and an MCP block side by side in a random order, ${results.mcp_cpu_calls}
calls of each; the difference is the median of the pairs' differences. On this shared machine wall
time moves by more than the whole difference from one pass to the next; the CPU a call costs moves
less, so it is the figure to compare between changes. The machine's load average when the line
began: ${results.mcp_load_average} (2 cores, shared).

| | REST | MCP | added by MCP |
|---|---|---|---|
| p50 latency | ${results.mcp_rest_p50_ms} ms | ${results.mcp_mcp_p50_ms} ms | ${withSign(results.mcp_added_p50_ms)} ms (${withSign(results.mcp_added_p50_min_ms)} to ${withSign(results.mcp_added_p50_max_ms)}) |
| service CPU per call | ${results.mcp_rest_cpu_ms} ms | ${results.mcp_mcp_cpu_ms} ms | ${withSign(results.mcp_added_cpu_ms)} ms |

What changed for issue 25 (§6), measured with this line before (one run, load 12.0) and after (two
runs, load 11.8 and 12.7): the SDK's \`Server\` registers \`tools/call\` through an override that parses every
call's request a second time and parses (and copies) every result; the handler is now registered as
every other request is (\`src/server/mcp/server.ts\`), and a result's text is the output's JSON
without indentation (the answer carries the output twice, as text and as \`structuredContent\`).
Added CPU per call went from +0.285 ms to +0.229 and +0.244 ms (REST's call costs the service about
1.05 ms at this load), about a sixth of MCP's share; added p50 from +0.432 ms to +0.308 and +0.412 ms, the
passes of one run spreading by more than the change. Then a POST's requests went straight to the
server's dispatch, past the three schema checks of the SDK's \`onmessage\` that tell a request from a
response (two of them failing, and building error reports, on every request), the POST's messages
having been parsed by the SDK's own schema already (\`src/server/mcp/request-dispatch.ts\`); and the
answer is written around the output's JSON made once for its text, instead of serializing the output
a second time (\`answerJson\`, \`src/server/mcp/results.ts\`). Before and after, one run each at load
10.2 and 10.7: added CPU per call +0.399 to +0.195 ms, added p50 +0.788 to +0.361 ms. What is left of
the difference: the SDK's parse of the request and its check for task parameters, the JSON-RPC checks
of the POST, and an answer twice the size of REST's (the MCP spec asks for the output as text beside
\`structuredContent\`, for clients that read only \`content\`).

## Trello: one token's rate budget shared by many agents

N agents (each with its own API key) run Get Card in a loop against one Trello token for ${BUDGET_MS / 1000} s. Utilisation
is requests completed ÷ what the token allows (100 per 10 s × elapsed); the sandbox enforces Trello's limits and
counts every 429 it sends.

| agents | completed | utilisation | 429s from the sandbox | goal |
|---|---|---|---|---|
${BUDGET_AGENTS.map((n) => `| ${n} | ${results[`budget_completed_${n}_agents`]} | ${results[`budget_utilisation_${n}_agents`]} | ${results[`budget_429s_${n}_agents`]} | ≥ 0.97, 0 429s |`).join('\n')}
${results.budget_utilisation_16_agents_2_processes === undefined ? '' : `| 16, over two processes on PostgreSQL | | ${results.budget_utilisation_16_agents_2_processes} | ${results.budget_429s_16_agents_2_processes} | ≥ 0.97, 0 429s |`}

The raw numbers are in \`bench/results.json\`.

## Reading the numbers

- **Added latency** is what one call costs on top of the platform itself: the extra HTTP hop from the
  agent to Switchyard, authentication, the integration lookup, validating input and output, and
  re-serialising the answer. The hop alone, an empty answer from the same service, is measured in
  the same run (${results.hop_latency_p50_ms} ms at p50 here). The bare proxy pays the hop and the plain
  work of any service that makes the same two requests; what Switchyard adds beyond the bare proxy
  is its own work. The API key and integration lookups are cached in process (5 s), and so is the
  integration's opened credential, so neither the database nor decryption is on this path.
- **Passes**: other tenants of a shared machine come and go within minutes, and while one is busy
  every hop costs more: the direct call, the bare proxy and Switchyard alike. The latency is measured
  in ${results.latency_passes} passes spread through the throughput phases and the median pass is reported,
  with the range of all passes beside it, so one busy spell moves the range rather than the result.
- **Throughput** runs three processes (load generator, Switchyard, sandbox) on ${os.cpus().length} cores. Through
  Switchyard every call is three HTTP exchanges (one in, two out) on top of the sandbox's own work,
  all competing for the same cores, and Switchyard's single event loop is the first to fill up.
  Profiles put most of its time in writing and parsing HTTP (Fastify, undici, the socket calls) and
  JSON, which the bare proxy also pays: its ratio is the ceiling for this design on this machine. Each side runs in four
  alternating phases and the rates are averaged; the machine is shared, so read one run with care.
- **On PostgreSQL**, as instances run at scale, the same call goes through a service on the test
  database. A Zendesk token has no fixed budget, so the call takes no lock there: each instance
  reads the stored pauses at most every 250 ms, and the database stays off the call's path.
- **Memory**: the same service on PostgreSQL shows Switchyard's own footprint; embedded PGlite (a
  WebAssembly PostgreSQL) adds the rest. A new data directory is initialised in a short-lived child
  process, whose initdb memory (about 500 MiB) is then given back, and PGlite runs with a 32 MB
  buffer cache; before both, the embedded service idled at about 850 MiB. PGlite's module is compiled
  by V8's baseline WebAssembly compiler only (its optimised second copy was about 65 MiB), and one
  template worker is kept warm instead of two: the goal is 250 MiB or less at idle.
- **Where the embedded default's memory goes**, idle after \`npm start\` (\`/proc/<pid>/smaps\`, a heap
  snapshot, \`process.memoryUsage()\`): PGlite's WebAssembly memory, 128 MiB reserved of which about 49
  MiB is resident; the JavaScript heap, about 53 MiB, of which about 11 MiB is the loaded modules'
  source text and about 4.5 MiB their source maps (tsx, so stack traces name the TypeScript lines);
  Node's own binary, about 47 MiB; tsx's module loader thread, thread stacks and the allocator make
  the rest. What an idle instance never uses is loaded when first needed: the MCP SDK on the first
  request to \`/mcp\`, the AI SDK and its providers on a model run's first call, the identity
  provider library on the first sign-in through it, nodemailer on the first mail and the password
  strength lists on the first new password. Measured alternately on this machine, idle 10 s after
  start, with the MCP and AI SDKs loaded at start the JavaScript heap held 60 MiB after a full
  collection and the process 239 to 242 MiB; loaded when first needed, 48 MiB and 216 to 219 MiB.
${
  results.many_subscriptions_pglite_intake_ratio === undefined
    ? ''
    : `
## Many subscriptions

\`bench/many-subscriptions.ts\` (issue 22, §7 and §9): the Trello line above (intake for 8 s by 128 senders,
then trigger latency at 200 deliveries a second) on a store that also holds 1,000 Trello integrations with
10,000 active subscriptions (written straight into the tables and not analyzed: the service meets them as
they were left), against the same on a store holding only the measured subscription, each on a service of
its own, in one run. Goal: within 1.5× of one subscription. The machine's load average when the line
began: ${results.many_subscriptions_load_average} (2 cores, shared). Under such load the two halves of a line
meet different machines (the bare server's rate moved up to threefold between them): read the ratio to the
bare server and the CPU per delivery (service plus PostgreSQL) before the raw ratio.

| store | intake, one subscription (to a bare server) | intake, 10,000 (to a bare server) | ratio | CPU per delivery, one → 10,000 | trigger latency p99, one | p99, 10,000 | ratio | goal |
|---|---|---|---|---|---|---|---|---|
${manyRows(results)}
`
}${
    results.hostile_templates_event_loop_p99_ms === undefined
      ? ''
      : `
## Hostile templates

\`bench/hostile-templates.ts\` (issue 22, §2 and §9): a Vercel subscription whose mapping is the issue's runaway
template (\`$replace($pad("",1000000,"a"),"a",$pad("",100,"b"))\`) receives deliveries while \`/health\` is asked
every 50 ms. The event-loop delay is the service's own (\`nodejs_eventloop_lag_p99_seconds\` from \`/metrics\`).
The machine's load average when the line began: ${results.hostile_templates_load_average ?? '?'} (2 cores, shared).

| event-loop delay p99 | goal | /health answered | /health failed | template worker batches | service CPU | its thread waiting for a core |
|---|---|---|---|---|---|---|
| ${results.hostile_templates_event_loop_p99_ms} ms | ≤ 20 ms | ${results.hostile_templates_health_answered} | ${results.hostile_templates_health_failed} | ${results.hostile_templates_worker_batches ?? '?'} of ${results.hostile_templates_deliveries_sent} deliveries | ${results.hostile_templates_process_cpu_ms_per_s ?? '?'} ms/s | ${results.hostile_templates_main_thread_wait_ms_per_s ?? '?'} ms/s |

Service CPU is the whole process's time on a core (every thread: the template workers' too) per second
of the line; the last column is the service's thread's wait for a core (Linux's schedstat). Both, and
the count of batches sent to a template worker, are what load does not distort; the delay is not.

What held the service, from CPU profiles of the service's thread and of each template worker through
this line (\`BENCH_PROFILE\`) and a count of the statements the embedded store ran, before and after
this stop's changes (load 4–10):
- The issue's template fails at the size cap, never at the time limit, so it was never held back
  (\`core/expressions/stopped-templates.ts\`), and the cap was checked on the result only: every
  delivery built the whole 100,000,000-character result in a worker. Both template workers were
  evaluating for 97 % of their lives through the line (15.5 s each in 16 s, most of it collecting what
  \`$replace\` built): both cores of the machine, at nice 19, yet the cores the service's thread and the
  embedded store need. Now the cap stops an evaluation before it builds more (\`core/expressions/size-cap.js\`:
  \`$replace\` with a string pattern counts its matches first), and a template that failed at the cap in
  a worker is held back for its owner, for inputs as large (docs/security.md, "Templates"); deliveries
  that come while its first try is still running wait for it (under load, 15–23 of the 100 had each
  gone to a worker before the first try ended). Through the line one batch goes to a worker; the
  workers evaluated for 0.3 s each, mostly their own start. Alternating with the previous head at load
  11.7–14.3, the service's CPU was 374–388 ms/s before and 157–209 ms/s after (before the wait for a
  first try; 118 ms/s with it, load 11.3).
- Each delivery woke the run worker although its run was stored failed (\`mapping_failed\`): one claim
  statement per delivery (99 in the line, up to 48 ms each at load 8.5, the longest statements on this
  path). A delivery that queued nothing now wakes nothing: 2 claims in the line.
- What is left on the service's thread is the embedded store's statements, run synchronously with
  their file calls: the intake's \`accept_events\`, one per delivery (they come one at a time, so the
  group commit has nothing to batch; 2.7 ms on average, 11.7 ms at most, load 9.7), and the poller's
  claim, once a second in each of its 4 lanes even with no polled trigger (2.6 ms on average). The
  longest busy stretches of the thread (17–48 ms, of 9–31 samples) are each one such statement
  stretched by the wait for a core. On a machine this loaded (load 10–14 while this was measured),
  that wait is most of the delay: read the figure with the load average beside it.
`
  }${
    results.noisy_neighbour_b_during_p99_ms === undefined
      ? ''
      : `
## Noisy neighbour

\`bench/noisy-neighbour.ts\` (issue 22, §2 and §9), embedded store: user A sends ${results.noisy_neighbour_burst_deliveries}
Trello deliveries as fast as 64 senders can (${results.noisy_neighbour_burst_acknowledged} acknowledged in
${results.noisy_neighbour_burst_s} s) while user B's Vercel trigger receives one delivery a second. B's trigger
latency is from sending its delivery to its run's claim (\`started_at\`); "alone" is the same for B before A's burst, in
the same run. The machine's load average when the line began: ${results.noisy_neighbour_load_average} (2 cores, shared).

| B's trigger latency | alone | during A's burst | goal |
|---|---|---|---|
| p50 | ${results.noisy_neighbour_b_alone_p50_ms} ms | ${results.noisy_neighbour_b_during_p50_ms} ms | |
| p99 | ${results.noisy_neighbour_b_alone_p99_ms} ms (${results.noisy_neighbour_b_alone_runs} runs) | ${results.noisy_neighbour_b_during_p99_ms} ms (${results.noisy_neighbour_b_during_runs} runs) | ≤ 100 ms |
${
  results.noisy_neighbour_b_during_intake_p99_ms === undefined
    ? ''
    : `| p99 during the burst, up to the run's row (the intake) | | ${results.noisy_neighbour_b_during_intake_p99_ms} ms | |
| p99 during the burst, from the row to the claim (the queue) | | ${results.noisy_neighbour_b_during_queued_p99_ms} ms | |
`
}
Where B's time went, traced in the service (issue 22, §2), on a machine at load 15–23:

- **The queue** (row to claim): B's run was claimed by the first claim after it was queued, but every
  slot was held by A's runs, and they end together (their ends share a write), so that claim came
  when a batch of A's runs ended, 0.4–1.7 s later (p99 1.1–1.7 s in three runs of 3,000–5,000
  deliveries). A worker of 4 slots or more now keeps one for other owners (\`slotsPerOwner\`,
  \`core/agents/worker.ts\`): the queue's p99 fell to 76 ms in a run of 5,000 deliveries (load 19) and to the figure in the table above in this one.
- **The intake** (send to row): traced per delivery (load 13–16, 8,000 deliveries), B's delivery waited
  first to be read at all: PGlite runs its statements on the service's thread, and a lock handed on at
  once ran every queued statement in the same turn of the event loop, so no socket was read until all
  were done (300 queued statements held the loop 0.55 s). Then its statements queued behind A's runs'
  on the one connection: the route (six reads) expired at every other delivery of a webhook receiving
  one a second, the owner's queue count at almost every one, and the shared write took A's deliveries
  first. Now the loop turns between statements, the intake's statements and the claims go first but
  never twice in a row, the route and count are read again in the background before they expire, and
  the shared write takes one delivery per owner in turn and is bounded in time (docs/scaling.md, "One
  user's burst"). B's delivery also has its own connections in this line: through A's 64-connection
  pool it first waited in the bench for one of A's answers. In one run at load 14 (8,000 deliveries),
  B's p99 went from 1,622 ms (intake 1,472 ms) before to 458 ms (intake 411 ms) after, and A's burst
  was taken in 22 s instead of 63 s.
- **Statements waited behind**, traced per delivery of B in the service (statements the embedded
  store ran between two points of B's road, which load does not change; B's first delivery, which
  reads its route, left out). Three things on B's road still waited behind A's work, now removed
  (docs/scaling.md, "One user's burst"):
  - B's claim, in the intake's lane, waited behind A's next shared write (queued a moment before
    it) and the run statement that write alternates with. A claim woken by an owner holding none of
    the worker's slots now goes right after the statement in progress (\`Store.soonest\`). Giving every
    claim that place was tried first: A's claims then went ahead of B's write too (statements before
    B's write, p50 3 → 6), so only such a claim jumps the line.
  - B's write waited behind every route read again ahead of need queued before it (each webhook in
    use, seven statements a second); those reads now take turns with the intake's writes in a line of
    their own (\`Store.ahead\`).
  - A's count of waiting runs (\`queue-cap.ts\`) read one index entry per waiting run, 30–66 ms of the
    one thread once a second at 20,000; it is now one row kept with the runs (\`queued_run_counts\`).

  | B's road | before (6,000 deliveries, load 13) | after (20,000, load 10) |
  |---|---|---|
  | statements before B's claim, p50 / max | 1 / 15 | 1 / 10 |
  | statements before B's write, p50 / max | 3 / 12 | 4 / 11 |
  | in the service, receipt to claim, p50 / p99 | 171 / 833 ms | 62 / 173 ms |
  | B's trigger latency p50 / p99 (bench) | 291 / 955 ms | 90 / 369 ms |

  The one statement before a claim is now the one in progress (or an ordinary one let in while the
  worker's deferral for the intake, which B's wake cuts short, waits for its next 2 ms check);
  before, it was a run statement and, at the tail, A's writes and their alternates. The write's
  count is unchanged at the median: one of A's writes in progress and the statements each write
  alternates with are what remains, by design (the runs must progress).

  What is left is mostly time no statement of A's accounts for. Receipt to claim in the service was
  173 ms at p99 against 369 ms in the bench: the rest passed before the service read B's request
  (the event loop's turns carry A's requests' own work, reading, verifying and matching 64
  deliveries in flight, and the bench's own senders share the 2 cores). Each statement, B's write
  and claim included, took 3–110 ms of wall time at load 10–13 (a claim up to 111 ms with nothing
  before it). Scheduling alone does not reach the goal at that load; a quiet machine is needed to
  say how far from it the service is.
`
  }${
    results.old_installation_intake_ratio === undefined
      ? ''
      : `
## An old installation (embedded store)

\`bench/old-installation.ts\`: the intake's statement (\`accept_events\`, batches of 64, each run then
claimed and finished) for a fixed time while the embedded store's maintenance runs every second, with
${results.old_installation_runs_kept} finished runs kept (made with one INSERT … SELECT generate_series) against
${results.old_installation_baseline_runs_kept}, in one run. Goal: within 1.25×. \`BENCH_OLD_RUNS\`,
\`BENCH_OLD_SMALL\` and \`BENCH_OLD_PHASE_MS\` scale it down for a quick run. A pause is one maintenance
step's hold of the store's one thread: the maintenance reads the statistics, then vacuums and analyzes
one table per step, and the intake's statements go between steps (src/core/store/pglite-vacuum.ts).

| runs kept | intake (statements' deliveries /s) | longest maintenance pause |
|---|---|---|
| ${results.old_installation_baseline_runs_kept} | ${results.old_installation_baseline_intake_per_s} | ${results.old_installation_baseline_longest_pause_ms} ms |
| ${results.old_installation_runs_kept} | ${results.old_installation_intake_per_s} (${results.old_installation_intake_ratio}×) | ${results.old_installation_longest_pause_ms} ms (${results.old_installation_pause_ratio}×) |

Why the pause grows, read from \`VACUUM (VERBOSE)\` on 1,000,000 runs: a claim and an end each write a
new version of the run's row, in a new place (PostgreSQL's in-page "HOT" update cannot be used while
the status is in an index's condition, and a statement that moves a page's worth of runs at once
does not fit their new versions in the page even with room left free), so each leaves a dead entry
in every index of \`runs\`. VACUUM skips the indexes until 2 % of the table's pages hold such entries,
then reads each index whole: the primary key, the per-event index and the per-owner index, about
11,000 pages at 1,000,000 runs, 45–50 ms alone against a few milliseconds for the recent pages. The
partial indexes were moved out of the way and a fill factor left room (80 % and 50 %) in a trial:
fewer updates went elsewhere, but a whole-index pass still came every 3 to 5 seconds, because a
B-tree index has no partial vacuum. Bounding the pause by age needs the runs kept apart from the
runs moving.

So on the embedded store \`runs\` and \`run_steps\` are partitioned by month (migration 0023,
src/core/store/runs-by-month.ts; ids begin with the time they were made): the tables as they were
become the partition before the upgrade (4.5 s to convert 1,000,000 runs, no row copied), months are
made ahead and dropped once retention empties them, and only the month's partition changes, so only
its indexes are vacuumed. The table above is that layout: with 1,000,000 runs kept before it, the
longest pause is the month's, as with 10,000. Measured side by side with the single table on
2026-11-28, on a shared machine at a load average near 2 (so absolute rates about half a quiet
day's), two runs each:

| | longest pause, 1,000,000 kept against 10,000 | intake ratio |
|---|---|---|
| a month a partition | 0.76×, 0.89× | 1.19×, 1.05× |
| one table (before) | 2.09×, 2.34× | 0.94×, 0.95× |

and on the lines the partitions could slow, the embedded store matched the single table: many
subscriptions' service CPU per delivery 614–741 µs against 784–1,557 µs; the noisy neighbour's B
p99 121 ms against 142 ms; a model run 24.5 runs/s and 43.8 ms of service CPU against 20.6 and
51.7 ms. That needs one kept plan: PL/pgSQL planned its functions for each call's values over
partitions, so a claim over 29 partitions (two years of months) took 18 ms against 1.7 ms with one
plan, and \`accept_events\`, planned for each batch, halved the trigger intake. The four functions
that write runs are set to \`plan_cache_mode = force_generic_plan\` on the embedded store.

PostgreSQL keeps one table (0023 does nothing there). The same partitions were measured on it first,
side by side with the single table, and cost the run paths far more than a pause PostgreSQL does not
have (its autovacuum works beside the service): the many-subscriptions line's trigger latency p99 was
938–1,136 ms against 33–97 ms, p50 35–423 ms against 2–5 ms, intake 3,220–3,930 against
4,180–5,030/s, and the model line's database CPU per run 9.6–10.2 against 8.3 ms. Each statement on
runs then locked every partition and each of its nine indexes: one claim with five partitions held
156 relation locks (\`pg_locks\`), 138 of them past the 16 a PostgreSQL backend takes without the
shared lock table, with ten connections doing so at once.

Retention (docs/operating.md) is what keeps an installation from reaching the larger table by age
alone; this line measures what an operator who keeps that many runs pays.
`
  }${
    results.model_call_added_p50_ms === undefined
      ? ''
      : `
## Model agents

\`bench/model-agents.ts\` (\`BENCH_ONLY=model\`): a model agent of three model calls and two tool calls
(get_ticket, search_tickets, then an answer) on the sandbox model's default rules and the Zendesk
sandbox. What Switchyard adds per model call is a run's own working time (its \`started_at\` to
\`finished_at\`) less its tool calls' time, over three, against the same conversation's calls sent
straight to the sandbox model with the same library (the AI SDK), interleaved, runs one at a time on
the embedded store. It covers everything a model call costs in a run besides the model itself:
reading the timeline back to rebuild the transcript, the budget and loop checks, storing the call's
entry before and after it, and the hand-over to the tool call. Runs per second are many runs
started at once (32 at a time), read from the runs' own end times; beside them, the CPU each run
cost the service's process and, on PostgreSQL, the backends of its database (read from /proc over
the same runs), which moves far less with this shared machine's load than the rate does.

A model run waits for its provider's answer out of its worker slot ([scaling](scaling.md), "Model
runs wait out of their slots"): holding a slot, 8 slots carried 8 runs and the rate was capped at
about 27/s with the CPU idle; now the CPU is the limit. A run makes 13 statements of its own, down
from 15 (the agent's saved version is read from the versions cache at its start, and the run's state
is stored with its first entry instead of in a statement of its own;
\`test/model-run-statements.test.ts\` counts them on both stores, and the model connection is looked
up in a cache the change feed keeps true instead of read before each call). Measured at load 12 on
this 2-core machine, the service's CPU per run on PostgreSQL went from 30.8 to 26.0 ms and the
database's from 13.2 to 11.4 ms, and the rate from 15.5 to 19.7 runs/s at that load (PGlite: 66.5 →
64.3 ms, 6.9 → 12.6 runs/s). Most of what is left is the statements themselves (a socket write and
a wake of the database each) and the five HTTP calls; the goals need about a fifth of this CPU.
Since then a run makes 8 statements of its own, not 13: each entry's end goes with the next entry's
begin, and the last one's with the run's end, in one fenced statement (\`src/core/models/claimed-timeline.ts\`).

Then a statement log of these runs on the embedded store showed those statements were nearly all of
what a run adds to its model calls, and most of each one's time was parsing and planning its text,
not running it: a timeline entry's begin took 0.66 ms as a statement and 0.30 ms as a database
function, whose plan each connection keeps (0.44 against 0.29 ms on PostgreSQL). The claim, the
begins and the ends are now the functions \`claim_runs\`, \`begin_run_steps\` and \`end_runs\`
(migration 0022), as the intake's \`accept_events\` already was. Measured on a quiet machine: added
per model call 2.87 → 1.89 ms in the first run after the change, and 2.30 and 2.05 ms in two more (the
direct call moved as much, 1.9–2.4 ms): at the goal, not clearly under it; runs per second 36 → 40–49
on PGlite and 103 → 105–125 on PostgreSQL, the database's CPU per run 6.3 → 4.6–5.8 ms. What is left of
the throughput goal is the CPU itself: the service and its database use about 11 ms per run, so two
cores would carry at most about 180 runs a second if nothing else ran, and the two sandboxes (five
HTTP calls a run) share the same cores; 200 a second needs about half of today's CPU per run. A
further step measured but not taken: node-postgres over PGlite (PGlite's own adapter) with named
statements, which each connection parses once, took a begin from 0.36 to 0.27 ms; it would replace
the embedded store's driver.

Then pg_stat_statements over the PostgreSQL line (2026-11-28) showed where the database's CPU went:
an entry's end inside \`begin_run_steps\` took 0.75 ms against 0.06 ms for the insert beside it. The
function joined its JSON (which the planner takes for 100 rows) with \`run_steps\`, and the plan it
kept for the connection, made while the table was young, read \`run_steps\` whole for every entry
until the table was next analyzed, which in a line this short it never was; the claim read \`runs\`
whole the same way. Migration 0024 finds each row by its key instead
(\`src/core/store/run-functions.ts\`; \`test/run-writes-by-key.test.ts\` counts the scans). Side by
side with the code before, same hour, two runs each:

| | before | after |
|---|---|---|
| PostgreSQL: runs/s | 95, 104 | 135, 114 |
| PostgreSQL: database CPU per run | 6.6, 6.0 ms | 3.4, 4.2 ms |
| PostgreSQL: service CPU per run | 8.1, 7.6 ms | 6.7, 7.8 ms |
| embedded store: runs/s | 40, 41 | 62, 52 |
| embedded store: service CPU per run | 26.9, 26.1 ms | 18.0, 21.2 ms |

Since then the throughput line runs one run first on each store, so PostgreSQL's CPU per run no
longer carries the providers' modules, which load at a service's first model call. What is left of
the goal is the service's own thread: at about 7 ms a run it is busy all the time at 130–140 runs a
second, and 200 would need about 5 ms, with the database, the sandboxes and the bench itself sharing
the second core. The added time per model call on the embedded store moved between 2.0 and 2.9 ms
across runs of the same code that day; the change did not move it measurably.

Then the model calls stopped going through fetch (\`src/core/http/whole-answer-fetch.ts\`): the
runner's calls send a string and read the answer whole, and fetch carried each answer through
WHATWG streams and its own request and response objects. They now go on undici's \`request\`
(the platforms' calls go on undici's dispatcher already), and the SDK gets a real \`Response\`
made from the whole answer. The direct call beside it keeps the SDK's own fetch. Side by side with the code before,
three runs each, before and after in turn, in an hour when this shared machine ran the code before
at 51–74 runs/s on PostgreSQL, against 114–135 in the measurements above:

| | before | after |
|---|---|---|
| PostgreSQL: runs/s | 69, 74, 51 | 82, 83, 75 |
| PostgreSQL: service CPU per run | 12.2, 11.5, 16.6 ms | 9.7, 9.3, 10.5 ms |
| added per model call, p50 | 5.2, 3.1, 3.7 ms | 2.7, 3.1, 3.3 ms |

The service's CPU per run fell by a fifth or more; the added time per model call moved with the
machine more than with the change.

Then a run's timeline entries and its start went into group commits (2026-11-29). Entries that a
worker's claims begin at the same moment share one statement (\`begin_runs_steps\`, migration 0025),
as runs' ends already did, and runs started at the same moment share one insert
(\`src/core/agents/runs.ts\`). pg_stat_statements over the PostgreSQL line had shown 5,005 begins in
5,005 statements, and the runs' inserts at 3.5–4.2 ms each, most of it each insert waiting its turn
for the owner's count of waiting runs (0021), which every insert on \`runs\` keeps; after the change
the same 5,005 begins went in 1,658 statements and the 1,001 runs in about 20 inserts. This line now
also reads the CPU of the sandboxes' process and of the bench itself. Side by side with the code
before, same hour, before and after in turn, two runs each:

| | before | after |
|---|---|---|
| embedded store: runs/s | 34, 30 | 53, 55 |
| embedded store: service CPU per run | 31.4, 36.5 ms | 20.9, 20.0 ms |
| PostgreSQL: runs/s | 74, 64 | 68, 79 |
| PostgreSQL: database CPU per run | 6.5, 7.6 ms | 5.6, 4.8 ms |
| PostgreSQL: service CPU per run | 11.4, 12.8 ms | 11.8, 10.6 ms |
| PostgreSQL: the sandboxes' CPU per run | 4.1, 4.6 ms | 4.8, 4.3 ms |
| added per model call, p50 | 3.7, 4.1 ms | 3.7, 4.5 ms |

On the embedded store, where every statement takes the one connection in turn, the rate went up by
about two thirds. On PostgreSQL the database's CPU per run fell by about a fifth and the rate moved
with the machine. There the sandboxes use about as much CPU per run as the database (five HTTP calls
a run), and the four processes together kept this 2-core machine about 90 % busy (vmstat). In a
profile of the service the kernel's socket writes (\`writev\`) took a sixth of the samples, but /proc
counted 8 % of the service's CPU as system time over the same runs: that share is the thread waiting
while the database backend its write woke runs on the same cores, not work of its own. The rest is
spread thin: no function of the service's own takes more than 1.5 % of its samples, and 200 runs a
second on this machine would need about half of today's CPU per run in every one of the four
processes. That day's direct call's p50 was 4.8 ms against 1.9–2.4 ms on the quiet machine above,
and the added time per model call moved between 3.7 and 5.2 ms across its runs of the same code.

Then four changes (2026-11-29, later), each found in a log or a profile:

- **Claims for nothing.** pg_stat_statements counted 1,729 claims for 1,001 runs, and a log of the
  worker's claims showed two in three answering nothing: each time one of the busy owner's runs
  left its slot to wait, the worker claimed, with only the slot kept for other owners free. A slot
  freed by the worker's own runs is now claimed for only when a claim could fill it
  ([architecture](architecture.md), "Claim"): 642 claims for the same runs.
- **Begins answered with stamps.** \`begin_runs_steps\` sent back every entry it wrote, model
  answers and tool outputs included, turned from jsonb to text and parsed again, though the claim
  had sent those values itself; \`begin_runs_steps_stamped\` (migration 0026) answers each entry's
  place and the database's stamps only.
- **Made once.** Each tool value's canonical text, which the loop check compares, and each saved
  tool's schema as the model sees it were made again on every model call (the service's two
  costliest functions of its own in a profile); now once per value and per saved tool.
- **The bench's first question.** The latency line asked whether its run had ended at once after
  starting it. A log of the embedded store's statements showed that question's five reads meeting
  the run's first model call on the store's one connection, its entry waiting about 2 ms behind
  them, counted as time Switchyard added. The first question now waits 50 ms like the others. That
  is a change to the measurement, not to Switchyard, and the table below has it on both sides.

Side by side with the code before, in a quiet hour (the direct call's p50 2.1 ms), before and after
in turn, three runs each:

| | before | after |
|---|---|---|
| added per model call, p50 | 1.23, 1.49, 1.22 ms | 1.18, 1.15, 0.93 ms |
| embedded store: runs/s | 116, 133, 127 | 140, 148, 149 |
| embedded store: service CPU per run | 9.7, 8.6, 9.0 ms | 8.0, 7.7, 7.6 ms |
| PostgreSQL: runs/s | 161, 153, 154 | 161, 171, 149 |
| PostgreSQL: service CPU per run | 5.3, 5.5, 5.4 ms | 5.2, 4.9, 5.1 ms |
| PostgreSQL: database CPU per run | 2.3, 2.4, 2.4 ms | 2.1, 2.0, 2.0 ms |

In a noisier hour earlier that day the claims and begins changes alone took the service's CPU per
run on PostgreSQL from 7.3, 6.8, 6.3 to 6.7, 5.8, 5.7 ms and the database's from 3.3, 3.0, 2.9 to
2.7, 2.4, 2.4 ms. With the bench's question out of the run's way, the added time per model call is
under its goal on a quiet machine (1.6–2.3 ms in shorter runs in a noisier hour). The runs per
second are not: the four processes use about 9.6 ms of CPU per run (service 5.1, sandboxes 2.2,
database 2.0, bench 0.3), so two cores would carry about 200 a second only with nothing else to
run, and at 5 ms a run the service's one thread is busy all the time at 200 a second. What the
service spends is now mostly in the libraries it rests on: in a profile of the PostgreSQL line,
the HTTP client (undici) about a sixth of its samples, the AI SDK's provider about a ninth, the
PostgreSQL driver a tenth, and the driver's socket writes another tenth (mostly, as above, waiting
while the backend it woke runs). The table below is one run of this code a little later, when the
direct call's p50 was 2.4 ms.

A session later the same day ran on a machine about 1.75 times slower. There this code finished
84–94 runs a second on PostgreSQL, with CPU per run of 8.9–9.9 ms in the service, 3.8–4.2 ms in the
database and 3.9–4.8 ms in the sandboxes, and added 2.2–2.8 ms per model call: at about 19 ms of CPU
a run in all, two such cores cannot carry 200 a second whatever the service does. One change came
of its profiles: the model calls read their answers on undici's dispatcher, through the same
bounded exchange as the platforms' calls (\`src/core/http/whole-exchange.ts\`), without the
response stream and async iterator of undici's \`request\`. In a loop of 4,000 calls to a local
server the client's CPU per call went from 319–328 µs to 271–292 µs; in the model line, side by
side, the difference was under that machine's noise.

Then the worker's slots (2026-11-29, a session after that, on a quiet machine as fast as the first).
A run in its slot also waits there for the database, for each entry begun and ended, and with 8
slots, 7 of them the one owner's, the service's thread sat idle in those waits while the four
processes used about 1.7 of the 2 cores. \`SWITCHYARD_RUN_CONCURRENCY\` now defaults to 32, where the
rate levels off ([scaling](scaling.md), "How many slots"). With more runs writing at the same moment,
each statement carries more of them, so every process spends less per run. Side by side, the same
code with 8 slots and with 32, in turn, three runs each:

| | 8 slots | 32 slots |
|---|---|---|
| PostgreSQL: runs/s | 167, 170, 166 | 232, 238, 241 |
| PostgreSQL: service CPU per run | 5.0, 4.9, 4.9 ms | 3.9, 3.9, 3.8 ms |
| PostgreSQL: database CPU per run | 2.1, 2.0, 2.1 ms | 1.3, 1.3, 1.3 ms |
| PostgreSQL: the sandboxes' CPU per run | 2.2, 2.1, 2.2 ms | 1.8, 1.8, 1.7 ms |
| embedded store: runs/s | 151, 154, 148 | 171, 174, 183 |
| added per model call, p50 (runs one at a time) | 0.80, 0.81, 0.70 ms | 0.85, 0.70, 0.95 ms |

The added time per model call is measured one run at a time, so the slots do not move it. On the
machine 1.75 times slower above, that CPU per run would carry at most about 140 runs a second: the goal
is met on a machine like this one, not on that one. The table below is one run of this code.

| line | result | goal |
|---|---|---|
| a model call through a run, p50 | ${results.model_call_switchyard_p50_ms} ms | |
| the same call straight to the sandbox model (AI SDK), p50 | ${results.model_call_direct_p50_ms} ms | |
| added per model call, p50 | ${results.model_call_added_p50_ms} ms | ≤ 2 ms |
| model-agent runs finished, PGlite | ${results.model_runs_pglite_per_s} /s | |
| model-agent runs finished, PostgreSQL | ${results.model_runs_postgres_per_s ?? 'not measured'} /s | ≥ 200/s |
| CPU per run, service on PGlite (the store in its process) | ${results.model_run_pglite_service_cpu_ms ?? 'not measured'} ms | |
| CPU per run on PostgreSQL, service + database | ${results.model_run_postgres_service_cpu_ms ?? 'not measured'} ms + ${results.model_run_postgres_database_cpu_ms ?? 'not measured'} ms | |
| CPU per run on PostgreSQL, the sandboxes; the bench itself | ${results.model_run_postgres_sandbox_cpu_ms ?? 'not measured'} ms; ${results.model_run_postgres_bench_cpu_ms ?? 'not measured'} ms | |
`
  }`
  fs.writeFileSync(path.join(dir, '../docs/benchmarks.md'), md)
}

/**
 * BENCH_ONLY=memory, mcp, hostile, many, noisy, old or model measures only that line; BENCH_REPORT_ONLY=1 writes docs/benchmarks.md again from bench/results.json,
 * to revise its prose without measuring.
 */
const only = process.env.BENCH_ONLY
const run = process.env.BENCH_REPORT_ONLY
  ? async () =>
      writeResults(JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'results.json'), 'utf8')))
  : only === 'many' || only === 'noisy' || only === 'old' || only === 'model'
    ? () => onlyOwnServiceLine(only)
    : only === 'memory'
      ? onlyMemoryLine
      : main

run().catch((err) => {
  console.error(err)
  process.exit(1)
})

/** A difference with its sign: one MCP pass can come out below REST's on a noisy machine. */
function withSign(ms: unknown): string {
  return typeof ms === 'number' && ms < 0 ? `−${-ms}` : `+${ms}`
}
