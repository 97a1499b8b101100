import fs from 'node:fs'
import path from 'node:path'

/**
 * The embedded database holds every integration's sealed credentials, so its data directory is the
 * owner's alone: the directory and every directory in it 0700, every file 0600 (docs/security.md).
 * PGlite writes its files world-writable (0666) whatever the umask, so the whole tree is walked and
 * repaired on every start, which also fixes a directory made by an older version. Symbolic links are
 * left alone, never followed.
 */
export function secureDataDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const pending = [dir]
  while (pending.length) {
    const current = pending.pop()!
    fs.chmodSync(current, 0o700)
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name)
      if (entry.isDirectory()) pending.push(full)
      else if (entry.isFile()) fs.chmodSync(full, 0o600)
    }
  }
}
