import { parseArgs } from 'node:util'
import { runCli } from './cli/commands.ts'

const argv = process.argv.slice(2)
runCli(argv, parseArgs).then(
  (code) => {
    if (code !== undefined) process.exitCode = code
  },
  (err) => {
    console.error(err instanceof Error ? err.message : String(err))
    process.exitCode = 1
  },
)
