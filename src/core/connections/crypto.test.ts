import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createSealer, KEY_FILE_NAME, loadEncryptionKey, parseKey } from './crypto.ts'

const key = Buffer.alloc(32, 7)

describe('credentials are encrypted at rest with AES-256-GCM', () => {
  it('round-trips and never contains the plaintext', () => {
    const sealer = createSealer(key)
    const sealed = sealer.seal('{"access_token":"very-secret"}')
    expect(sealed).not.toContain('very-secret')
    expect(sealer.open(sealed)).toBe('{"access_token":"very-secret"}')
  })

  it('uses a fresh nonce for every seal', () => {
    const sealer = createSealer(key)
    expect(sealer.seal('same')).not.toBe(sealer.seal('same'))
  })

  it('rejects tampered ciphertext and a wrong key', () => {
    const sealed = createSealer(key).seal('secret')
    const parts = sealed.split('.')
    const body = Buffer.from(parts[3], 'base64')
    body[0] ^= 1
    parts[3] = body.toString('base64')
    expect(() => createSealer(key).open(parts.join('.'))).toThrow()
    expect(() => createSealer(Buffer.alloc(32, 8)).open(sealed)).toThrow()
  })

  it('production refuses to start without a key', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sy-key-'))
    expect(() => loadEncryptionKey({ production: true, dataDir })).toThrow(
      /SWITCHYARD_ENCRYPTION_KEY is required/,
    )
    expect(fs.existsSync(path.join(dataDir, KEY_FILE_NAME))).toBe(false)
  })

  it('the embedded default generates a 0600 key file once and reuses it', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sy-key-'))
    const first = loadEncryptionKey({ production: false, dataDir })
    expect(first.source).toBe('generated')
    expect(fs.statSync(path.join(dataDir, KEY_FILE_NAME)).mode & 0o777).toBe(0o600)
    const second = loadEncryptionKey({ production: false, dataDir })
    expect(second.source).toBe('file')
    expect(second.key.equals(first.key)).toBe(true)
  })

  it('makes a missing data directory (as with DATABASE_URL set) the owner’s alone, 0700, whatever the umask', () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'sy-key-'))
    const dataDir = path.join(parent, 'nested', 'data')
    const umask = process.umask(0o022)
    try {
      loadEncryptionKey({ production: false, dataDir })
    } finally {
      process.umask(umask)
    }
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700)
  })

  it.each(['', 'short', 'zz'.repeat(32)])('rejects a malformed key %j', (text) => {
    expect(() => parseKey(text)).toThrow(/32 bytes/)
  })
})
