/**
 * Before it creates (or re-points) a webhook, Trello sends `HEAD callbackURL` and refuses
 * unless the answer is 200 (sources: Trello actions and webhooks). The refusal is 400 text/plain
 * `URL (<callbackURL>) did not return 200 status code, got <status>` [CAP Commit451/skyhook#91].
 * When nothing answers at all, `<status>` is the connection error's name [UNV].
 */
export type CallbackCheck = { ok: true } | { ok: false; message: string }

export async function checkCallback(callbackURL: string, timeoutMs: number): Promise<CallbackCheck> {
  let got: string
  try {
    const response = await fetch(callbackURL, {
      method: 'HEAD',
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    })
    if (response.status === 200) return { ok: true }
    got = String(response.status)
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error
    got =
      cause instanceof Error
        ? (('code' in cause && typeof cause.code === 'string' ? cause.code : undefined) ?? cause.name)
        : 'error'
  }
  return { ok: false, message: `URL (${callbackURL}) did not return 200 status code, got ${got}` }
}
