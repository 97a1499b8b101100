import type { Dispatcher } from 'undici'

/** Header names as received (lowercase), each with its value or values. */
export type ReceivedHeaders = Record<string, string | string[] | undefined>

/** An answer read to its last byte. */
export interface WholeAnswer {
  status: number
  statusText: string
  headers: ReceivedHeaders
  body: Buffer<ArrayBuffer>
}

export interface WholeExchange {
  dispatcher: Dispatcher
  url: URL
  method: Dispatcher.HttpMethod
  headers: Record<string, string>
  body?: string | Uint8Array
  /** The most bytes of answer read: one more fails the exchange with `tooLarge()`. */
  maxBytes: number
  tooLarge: () => Error
  /** Fails the exchange from the answer's headers alone, before a byte of its body is read. */
  refuse?: (headers: ReceivedHeaders) => Error | undefined
  /** A deadline from sending to the last byte of the answer, failing with `error()`. */
  deadline?: { ms: number; error: () => Error }
  /** Aborting fails the exchange with the signal's reason, even while it waits for a connection. */
  signal?: AbortSignal
}

/**
 * One request sent whole and its answer read whole under a bound, on undici's dispatcher API: the
 * answer's bytes are gathered as they arrive, with no stream, async iterator or fetch machinery
 * between the socket and the caller (both cost the service CPU on every platform and model call,
 * docs/benchmarks.md). The platform calls (api-client.ts) and the AI SDK's model calls
 * (whole-answer-fetch.ts) both read their answers here.
 */
export function exchangeWhole(x: WholeExchange): Promise<WholeAnswer> {
  return new Promise((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined
    let started: Omit<WholeAnswer, 'body'> | undefined
    const chunks: Buffer[] = []
    let size = 0
    let timer: NodeJS.Timeout | undefined
    let settled = false
    const settle = () => {
      settled = true
      clearTimeout(timer)
      x.signal?.removeEventListener('abort', onAbort)
    }
    const fail = (err: Error) => {
      if (settled) return
      settle()
      reject(err)
    }
    // A request still waiting for a connection has no controller yet: it is failed now, and aborted
    // as soon as undici hands it one.
    function onAbort() {
      const reason = x.signal!.reason
      fail(reason)
      controller?.abort(reason)
    }
    const handler: Dispatcher.DispatchHandler = {
      // undici tells handler styles apart by this method: without it the others go unheard.
      onRequestStart(given) {
        controller = given
        if (settled) return given.abort(x.signal?.reason ?? new Error('the exchange was abandoned'))
        if (x.deadline) {
          const { ms, error } = x.deadline
          // undici starts a request again when the one ahead of it on a connection failed: one timer.
          clearTimeout(timer)
          timer = setTimeout(() => {
            const timedOut = error()
            fail(timedOut)
            given.abort(timedOut)
          }, ms)
        }
      },
      onResponseStart(given, status, headers, statusText) {
        started = { status, statusText: statusText ?? '', headers }
        const refused = x.refuse?.(headers)
        if (refused) given.abort(refused)
      },
      onResponseData(given, chunk) {
        if (given.aborted) return
        size += chunk.length
        if (size > x.maxBytes) return given.abort(x.tooLarge())
        chunks.push(chunk)
      },
      onResponseEnd() {
        if (settled) return
        settle()
        resolve({ ...started!, body: Buffer.concat(chunks) })
      },
      onResponseError(_given, err) {
        fail(err)
      },
    }
    if (x.signal?.aborted) return reject(x.signal.reason)
    x.signal?.addEventListener('abort', onAbort)
    const request = {
      origin: x.url.origin,
      path: x.url.pathname + x.url.search,
      method: x.method,
      headers: x.headers,
      body: x.body,
    }
    try {
      x.dispatcher.dispatch(request, handler)
    } catch (err) {
      fail(err as Error) // a request undici refuses to send at all (a malformed header, say)
    }
  })
}
