import os from 'node:os'
import { request } from 'undici'
import { threadsCpuNs } from './cpu.ts'
import { interleavedLatencies, percentile } from './measure.ts'

/** Passes of interleaved calls; the line reports the pass whose MCP-minus-REST p50 is the median. */
const LATENCY_PASSES = 3
/** Calls per block, and pairs of blocks (one over REST, one over MCP), for the service's CPU per call. */
const CPU_BLOCK_CALLS = 10
const CPU_BLOCK_PAIRS = Number(process.env.BENCH_MCP_CPU_PAIRS ?? 300)
/** How long a block waits before its CPU is read: what the service does after its last answer is sent counts too. */
const SETTLE_MS = 5

/**
 * Get Ticket Info over MCP (`tools/call` on /mcp, one JSON-RPC POST as any Streamable HTTP client
 * sends it once initialized) against the same step over REST: what MCP adds.
 *
 * Two measures. Latency, in passes of interleaved calls. And the service's CPU time per call, read
 * from /proc around blocks of calls of one kind, a REST block and an MCP block side by side in a
 * random order: on this shared 2-core machine another tenant's burst moves wall time by more than the
 * whole difference (a p99 came out below REST's), while the CPU the service spends on a call moves
 * far less, and two neighbouring short blocks see about the same machine. The difference reported is
 * the median of the pairs' differences; the CPU per call of each kind, the median of its blocks.
 */
export async function mcpLatencies(options: {
  url: string
  apiKey: string
  integration: string
  ticketId: number
  rounds: number
  warmup: number
  dispatcher: import('undici').Dispatcher
  /** The service's process, whose CPU time is read. */
  pid: number
}): Promise<Record<string, number>> {
  const { url, apiKey, integration, ticketId, dispatcher, pid } = options
  const post = async (
    path: string,
    headers: Record<string, string>,
    body: string,
    check: (text: string) => boolean,
  ) => {
    const res = await request(`${url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
      body,
      dispatcher,
    })
    const text = await res.body.text()
    if (res.statusCode !== 200 || !check(text))
      throw new Error(`${path} answered ${res.statusCode}: ${text.slice(0, 200)}`)
  }
  const restBody = JSON.stringify({ integration, input: { ticket_id: ticketId } })
  let id = 0
  const mcpHeaders = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }
  const contenders = {
    rest: () => post('/v1/tools/zendesk.get_ticket/run', {}, restBody, () => true),
    mcp: () =>
      post(
        '/mcp',
        mcpHeaders,
        JSON.stringify({
          jsonrpc: '2.0',
          id: ++id,
          method: 'tools/call',
          params: { name: 'zendesk_get_ticket', arguments: { integration, ticket_id: ticketId } },
        }),
        (text) => !text.includes('"isError":true') && text.includes('"structuredContent"'),
      ),
  }
  const loadAverage = os.loadavg()[0]!
  await interleavedLatencies(options.warmup, contenders)

  const passes: Array<Record<keyof typeof contenders, number[]>> = []
  for (let i = 0; i < LATENCY_PASSES; i++) passes.push(await interleavedLatencies(options.rounds, contenders))
  const p50 = (pass: (typeof passes)[number], name: keyof typeof contenders) => percentile(pass[name], 50)
  const added = passes.map((pass) => p50(pass, 'mcp') - p50(pass, 'rest'))
  const median = passes[added.indexOf(percentile(added, 50))]

  const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
  const cpuPerCall = async (name: keyof typeof contenders) => {
    await settle()
    const before = threadsCpuNs(pid)
    for (let i = 0; i < CPU_BLOCK_CALLS; i++) await contenders[name]()
    await settle()
    return (threadsCpuNs(pid) - before) / CPU_BLOCK_CALLS / 1e6
  }
  const cpu = { rest: [] as number[], mcp: [] as number[], added: [] as number[] }
  for (let i = 0; i < CPU_BLOCK_PAIRS; i++) {
    const order: Array<keyof typeof contenders> = Math.random() < 0.5 ? ['rest', 'mcp'] : ['mcp', 'rest']
    const block: Record<string, number> = {}
    for (const name of order) block[name] = await cpuPerCall(name)
    cpu.rest.push(block.rest)
    cpu.mcp.push(block.mcp)
    cpu.added.push(block.mcp - block.rest)
  }

  const round = (n: number) => Math.round(n * 1000) / 1000
  return {
    mcp_rest_p50_ms: round(p50(median, 'rest')),
    mcp_mcp_p50_ms: round(p50(median, 'mcp')),
    mcp_added_p50_ms: round(percentile(added, 50)),
    mcp_added_p50_min_ms: round(Math.min(...added)),
    mcp_added_p50_max_ms: round(Math.max(...added)),
    mcp_rest_cpu_ms: round(percentile(cpu.rest, 50)),
    mcp_mcp_cpu_ms: round(percentile(cpu.mcp, 50)),
    mcp_added_cpu_ms: round(percentile(cpu.added, 50)),
    mcp_rounds: options.rounds,
    mcp_passes: LATENCY_PASSES,
    mcp_cpu_calls: CPU_BLOCK_CALLS * CPU_BLOCK_PAIRS,
    mcp_load_average: round(loadAverage),
  }
}
