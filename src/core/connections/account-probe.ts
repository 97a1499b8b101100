import { request } from 'undici'
import { invalidInput } from '../errors.ts'
import type { PlatformRuntime } from '../platforms/runtime.ts'

const PROBE_TIMEOUT_MS = 10_000

/**
 * Before a person is sent to a platform's authorization page, asks the platform whether the account
 * named by the connection fields exists, with the unauthenticated request the platform declares
 * (`accountProbe`). A 404 is a typo in a field: refused here, naming that field, rather than after
 * the person has left for a page that cannot bring them back. Any other answer, or none, lets the
 * flow go on: the probe only ever catches a certain mistake, it never blocks on a doubtful one.
 */
export async function probeAccount(runtime: PlatformRuntime, fields: Record<string, string>): Promise<void> {
  const probe = runtime.definition.accountProbe
  if (!probe) return
  let status: number
  try {
    const response = await request(`${runtime.baseUrl(fields)}${probe.path}`, {
      method: 'GET',
      headers: { accept: 'application/json' },
      headersTimeout: PROBE_TIMEOUT_MS,
      bodyTimeout: PROBE_TIMEOUT_MS,
    })
    status = response.statusCode
    await response.body.dump()
  } catch {
    return
  }
  if (status === 404) throw invalidInput([probe.missing(fields)])
}
