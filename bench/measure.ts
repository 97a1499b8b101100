/** Percentile of a sample, by nearest rank. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
}

/** Runs `rounds` sequential calls of each contender, interleaved so drift hits both alike. */
export async function interleavedLatencies(rounds: number, contenders: Record<string, () => Promise<void>>): Promise<Record<string, number[]>> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]))
  for (let i = 0; i < rounds; i++) {
    for (const [name, call] of Object.entries(contenders)) {
      const start = process.hrtime.bigint()
      await call()
      samples[name].push(Number(process.hrtime.bigint() - start) / 1e6)
    }
  }
  return samples
}

/** Completed calls per second with `concurrency` workers looping for `durationMs`. */
export async function throughput(concurrency: number, durationMs: number, call: () => Promise<void>): Promise<number> {
  let completed = 0
  const deadline = Date.now() + durationMs
  const started = process.hrtime.bigint()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (Date.now() < deadline) {
      await call()
      completed++
    }
  }))
  return completed / (Number(process.hrtime.bigint() - started) / 1e9)
}
