import type { client } from './stack.ts'

const FINISHED = new Set(['succeeded', 'failed', 'cancelled'])

/** Polls a run until it finishes (or the deadline passes) and returns it with its timeline. */
export async function waitForRun(
  api: ReturnType<typeof client>,
  runId: string,
  timeoutMs = 20_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const res = await api.get(`/v1/runs/${runId}`)
    if (res.status !== 200) throw new Error(`GET run ${runId}: ${res.status} ${res.text}`)
    if (FINISHED.has(res.body.status) || Date.now() > deadline) return res.body
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
