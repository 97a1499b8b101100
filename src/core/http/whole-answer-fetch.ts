import { Agent, type Dispatcher } from 'undici'
import { exchangeWhole, type ReceivedHeaders } from './whole-exchange.ts'

/** Where requests go when no network limit applies: one keep-alive pool for every origin. */
const anywhere = new Agent()

/**
 * The largest answer read: a model's answer is kilobytes (its output is capped in tokens), and a
 * server that sends without end must not fill the service's memory. fetch itself has no bound, and
 * the SDK's is 2 GiB.
 */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024

/**
 * fetch, as far as a caller that sends its whole request and reads the whole answer needs it: the
 * AI SDK's non-streaming model calls (models/providers/ai-sdk.ts), on exchangeWhole. fetch
 * carries every answer through WHATWG streams and its own request and response machinery, which cost
 * the service about 2 ms of CPU per run of three model calls (docs/benchmarks.md, "Model agents");
 * here the answer is read whole as it arrives and handed over as a real `Response` made from it, so
 * the caller reads status, headers and body exactly as from fetch.
 *
 * Where it differs from fetch, on purpose:
 * - A redirect is never followed: a 3xx is the answer (the provider refuses it as any other).
 * - It asks for the answer uncompressed (Accept-Encoding: identity); a model answer is a few
 *   kilobytes. One compressed anyway is refused as unreadable, never handed over as garbled text.
 * - It takes a URL and options, not a Request; a request body is a string or bytes, nothing else
 *   (the SDK's JSON calls send a string).
 * - An answer over MAX_ANSWER_BYTES is refused.
 *
 * As from fetch, a failure to exchange is `TypeError('fetch failed')` with the cause kept, and an
 * aborted call rejects with its signal's reason.
 */
export function wholeAnswerFetch(
  dispatcherFor: (url: string) => Dispatcher | undefined = () => undefined,
): typeof globalThis.fetch {
  const fetchWhole = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    if (typeof input !== 'string' && !(input instanceof URL))
      throw new TypeError('wholeAnswerFetch takes a URL and its options, not a Request')
    const url = typeof input === 'string' ? input : input.href
    if (init.body != null && typeof init.body !== 'string' && !(init.body instanceof Uint8Array))
      throw new TypeError('wholeAnswerFetch sends only a string or bytes as the request body')
    const dispatcher = dispatcherFor(url) ?? anywhere
    try {
      const answer = await exchangeWhole({
        dispatcher,
        url: new URL(url),
        method: (init.method ?? 'GET') as Dispatcher.HttpMethod,
        headers: { ...headerRecord(init.headers), 'accept-encoding': 'identity' },
        body: init.body as string | Uint8Array | undefined,
        maxBytes: MAX_ANSWER_BYTES,
        tooLarge: () => new Error(`the answer is larger than ${MAX_ANSWER_BYTES} bytes`),
        refuse: (headers) => {
          const encoding = headers['content-encoding']
          return encoding && encoding !== 'identity'
            ? new Error(`the answer came compressed (${String(encoding)}) though none was asked for`)
            : undefined
        },
        signal: init.signal ?? undefined,
      })
      return new Response(NULL_BODY_STATUSES.has(answer.status) ? null : answer.body, {
        status: answer.status,
        statusText: answer.statusText,
        headers: responseHeaders(answer.headers),
      })
    } catch (err) {
      if (init.signal?.aborted) throw init.signal.reason
      throw new TypeError('fetch failed', { cause: err })
    }
  }
  return fetchWhole as typeof globalThis.fetch
}

/** Statuses whose answer has no body (the Fetch standard's "null body status"): Response refuses one. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304])

function headerRecord(headers: HeadersInit | undefined): Record<string, string> {
  const record: Record<string, string> = {}
  if (headers instanceof Headers || Array.isArray(headers))
    new Headers(headers).forEach((value, name) => (record[name] = value))
  else
    for (const [name, value] of Object.entries(headers ?? {}))
      if (value !== undefined) record[name.toLowerCase()] = value
  return record
}

function responseHeaders(received: ReceivedHeaders): Headers {
  const headers = new Headers()
  for (const [name, value] of Object.entries(received)) {
    if (Array.isArray(value)) for (const one of value) headers.append(name, one)
    else if (value !== undefined) headers.append(name, value)
  }
  return headers
}
