import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openStore } from './database.ts'

// The embedded database's files hold sealed credentials: only their owner may read or write them.
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sy-data-dir-'))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

/** Every path under `dir` (itself included) whose mode is not 0700 for a directory, 0600 for a file. */
function looseModes(dir: string): string[] {
  const loose: string[] = []
  const visit = (at: string) => {
    const stat = fs.lstatSync(at)
    const mode = stat.mode & 0o777
    if (stat.isDirectory()) {
      if (mode !== 0o700) loose.push(`${path.relative(dir, at) || '.'} ${mode.toString(8)}`)
      for (const name of fs.readdirSync(at)) visit(path.join(at, name))
    } else if (stat.isFile() && mode !== 0o600) loose.push(`${path.relative(dir, at)} ${mode.toString(8)}`)
  }
  visit(dir)
  return loose
}

describe("the embedded data directory is the owner's alone", () => {
  const dataDir = path.join(root, 'data')

  it('a new data directory is 0700 and its files 0600 once the store is open', async () => {
    const store = await openStore({ dataDir })
    await store.db.selectFrom('users').select('id').execute()
    expect(looseModes(dataDir)).toEqual([])
    await store.close()
  }, 120_000)

  it('an existing directory with loose modes is repaired on start', async () => {
    const loosen = (at: string) => {
      const stat = fs.lstatSync(at)
      fs.chmodSync(at, stat.isDirectory() ? 0o777 : 0o666)
      if (stat.isDirectory()) for (const name of fs.readdirSync(at)) loosen(path.join(at, name))
    }
    loosen(dataDir)
    expect(looseModes(dataDir).length).toBeGreaterThan(100)
    const store = await openStore({ dataDir })
    expect(looseModes(dataDir)).toEqual([])
    await store.close()
  }, 120_000)
})
