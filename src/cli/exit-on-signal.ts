/**
 * Closes what a long-running command serves on SIGINT or SIGTERM, then exits 0: cut off instead, a
 * profiler (node --cpu-prof) would write nothing, since it writes its file only on a normal exit.
 * Returns the same stop, for a command that also ends another way (the MCP bridge, when its client
 * closes stdin).
 */
export function exitOnSignal(close: () => Promise<void>): () => Promise<void> {
  const stop = async () => {
    await close()
    process.exit(0)
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  return stop
}
