import { execFile } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { promisify } from 'node:util'

/**
 * Creating a PGlite data directory runs initdb in a second WebAssembly instance whose memory the
 * process keeps for good: about 500 MiB of resident memory that a service never needs again. So a
 * new directory is initialised in a short-lived child process, and the service opens the finished
 * directory at a fraction of the memory (measured in `npm run bench`).
 */
const INIT_SCRIPT = `
process.umask(0o077) // directories initdb makes are the owner's from the start (docs/security.md)
const [moduleFile, dataDir] = process.argv.slice(1)
const { PGlite } = require(moduleFile)
const db = new PGlite(dataDir)
db.waitReady.then(() => db.close()).catch((error) => { console.error(error); process.exit(1) })
`

export async function initialisePGliteDataDir(dataDir: string): Promise<void> {
  if (fs.existsSync(path.join(dataDir, 'PG_VERSION'))) return
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const moduleFile = createRequire(import.meta.url).resolve('@electric-sql/pglite')
  await promisify(execFile)(process.execPath, ['-e', INIT_SCRIPT, moduleFile, dataDir], { timeout: 120_000 })
}
