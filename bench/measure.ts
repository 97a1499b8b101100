/** Percentile of a sample, by nearest rank. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
}

/**
 * Runs `rounds` sequential calls of each contender, interleaved so drift hits all alike, in a new
 * random order each round: a contender that always ran right after another could find the machine
 * warmer or colder than the rest do.
 */
export async function interleavedLatencies(
  rounds: number,
  contenders: Record<string, () => Promise<void>>,
): Promise<Record<string, number[]>> {
  const names = Object.keys(contenders)
  const samples: Record<string, number[]> = Object.fromEntries(names.map((k) => [k, []]))
  for (let i = 0; i < rounds; i++) {
    for (const name of shuffled(names)) {
      const start = process.hrtime.bigint()
      await contenders[name]()
      samples[name].push(Number(process.hrtime.bigint() - start) / 1e6)
    }
  }
  return samples
}

function shuffled<T>(items: T[]): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}

/** Completed calls per second with `concurrency` workers looping for `durationMs`. */
export async function throughput(
  concurrency: number,
  durationMs: number,
  call: () => Promise<void>,
): Promise<number> {
  let completed = 0
  const deadline = Date.now() + durationMs
  const started = process.hrtime.bigint()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < deadline) {
        await call()
        completed++
      }
    }),
  )
  return completed / (Number(process.hrtime.bigint() - started) / 1e9)
}
