import { request } from 'undici'
import { interleavedLatencies, percentile } from './measure.ts'

/**
 * Get Ticket Info over MCP (`tools/call` on /mcp, one JSON-RPC POST as any Streamable HTTP client
 * sends it once initialized) against the same step over REST, interleaved in one run: what MCP adds.
 */
export async function mcpLatencies(options: {
  url: string
  apiKey: string
  integration: string
  ticketId: number
  rounds: number
  warmup: number
  dispatcher: import('undici').Dispatcher
}): Promise<Record<string, number>> {
  const { url, apiKey, integration, ticketId, dispatcher } = options
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
  await interleavedLatencies(options.warmup, contenders)
  const samples = await interleavedLatencies(options.rounds, contenders)
  const p50 = (name: keyof typeof contenders) => percentile(samples[name], 50)
  const p99 = (name: keyof typeof contenders) => percentile(samples[name], 99)
  const round = (n: number) => Math.round(n * 1000) / 1000
  return {
    mcp_rest_p50_ms: round(p50('rest')),
    mcp_mcp_p50_ms: round(p50('mcp')),
    mcp_added_p50_ms: round(p50('mcp') - p50('rest')),
    mcp_added_p99_ms: round(p99('mcp') - p99('rest')),
    mcp_rounds: options.rounds,
  }
}
