import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

const KEY_BYTES = 32 // AES-256
const IV_BYTES = 12 // the GCM standard nonce size
const TAG_BYTES = 16
const FORMAT_VERSION = 'v1'
export const KEY_FILE_NAME = 'encryption.key'

/** Seals and opens secrets with AES-256-GCM; the ciphertext carries a version, its nonce and tag. */
export interface Sealer {
  seal(plaintext: string): string
  open(sealed: string): string
}

export function createSealer(key: Buffer): Sealer {
  if (key.length !== KEY_BYTES) throw new Error('the encryption key must be 32 bytes')
  return {
    seal(plaintext) {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
      return [
        FORMAT_VERSION,
        iv.toString('base64'),
        cipher.getAuthTag().toString('base64'),
        body.toString('base64'),
      ].join('.')
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split('.')
      if (version !== FORMAT_VERSION || !iv || !tag || body === undefined)
        throw new Error('unrecognised sealed value')
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'), {
        authTagLength: TAG_BYTES,
      })
      decipher.setAuthTag(Buffer.from(tag, 'base64'))
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8')
    },
  }
}

/** Accepts 32 bytes as 64 hex characters or as base64. */
export function parseKey(text: string): Buffer {
  const trimmed = text.trim()
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64')
  if (key.length !== KEY_BYTES) {
    throw new Error(
      'SWITCHYARD_ENCRYPTION_KEY must be 32 bytes, as 64 hex characters or base64 (try: openssl rand -hex 32)',
    )
  }
  return key
}

/**
 * Production refuses to start without an explicit key: a generated key file next to the data would
 * silently make every credential unreadable after a redeploy onto a fresh disk. The embedded default
 * creates a 0600 key file on first start so a newcomer needs no setup.
 */
export function loadEncryptionKey(opts: { key?: string; production: boolean; dataDir: string }): {
  key: Buffer
  source: 'env' | 'file' | 'generated'
} {
  if (opts.key) return { key: parseKey(opts.key), source: 'env' }
  if (opts.production) {
    throw new Error(
      'SWITCHYARD_ENCRYPTION_KEY is required in production (generate one with: openssl rand -hex 32)',
    )
  }
  const file = path.join(opts.dataDir, KEY_FILE_NAME)
  if (fs.existsSync(file)) return { key: parseKey(fs.readFileSync(file, 'utf8')), source: 'file' }
  // The owner's alone, as the embedded store makes it (store/data-dir.ts): with DATABASE_URL set,
  // nothing else creates it, and it holds this key (issue 22 found it made 0755).
  fs.mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 })
  const key = randomBytes(KEY_BYTES)
  // 'wx' fails if another process created it meanwhile; then we read theirs.
  try {
    fs.writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' })
  } catch (err: any) {
    if (err.code !== 'EEXIST') throw err
    return { key: parseKey(fs.readFileSync(file, 'utf8')), source: 'file' }
  }
  return { key, source: 'generated' }
}
