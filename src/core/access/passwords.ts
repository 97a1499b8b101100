import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import { AppError } from '../errors.ts'

// Passwords are hashed with scrypt, Node's own (node:crypto, kept with Node itself): a memory-hard
// function, with no native add-on or download to install. The parameters are one of OWASP's
// equivalent recommended minimums for scrypt (N=2^15, r=8, p=3): the variant that holds 32 MiB per
// hash rather than 128, for a service that must idle small. They are written into each hash, so they
// can be raised later without invalidating the hashes already stored.
const COST = 2 ** 15
const BLOCK_SIZE = 8
const PARALLELIZATION = 3
const KEY_BYTES = 32
const SALT_BYTES = 16

/** Length limits: a floor that a strength estimate cannot lower, a ceiling that bounds the hashing work. */
export const MIN_PASSWORD_LENGTH = 10
export const MAX_PASSWORD_LENGTH = 256
/** zxcvbn's score (0–4) a new password must reach: 3 is "safely unguessable" (10^8 guesses and more). */
export const MIN_PASSWORD_SCORE = 3

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_BYTES, options, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  )
}

const parameters = (N: number, r: number, p: number): ScryptOptions => ({
  N,
  r,
  p,
  // scrypt's memory is 128·N·r bytes; Node refuses more than 32 MiB unless told.
  maxmem: 256 * N * r,
})

/** `scrypt$N$r$p$salt$key`, both in base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES)
  const key = await derive(password, salt, parameters(COST, BLOCK_SIZE, PARALLELIZATION))
  return [
    'scrypt',
    COST,
    BLOCK_SIZE,
    PARALLELIZATION,
    salt.toString('base64url'),
    key.toString('base64url'),
  ].join('$')
}

const HASH_FORMAT = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/

/**
 * Whether `password` matches `stored`. With no stored hash (no such person, or no password set) the
 * same work is done against a hash of nothing anyone knows, so the answer takes as long and says as
 * little as a wrong password (docs/security.md, "People").
 */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const match = stored ? HASH_FORMAT.exec(stored) : null
  const [N, r, p, salt, key] = match
    ? [Number(match[1]), Number(match[2]), Number(match[3]), match[4], match[5]]
    : [COST, BLOCK_SIZE, PARALLELIZATION, DECOY_SALT, DECOY_KEY]
  const expected = Buffer.from(key, 'base64url')
  const actual = await derive(password, Buffer.from(salt, 'base64url'), parameters(N, r, p))
  hashingWork.count++
  return match !== null && expected.length === actual.length && timingSafeEqual(expected, actual)
}

// A decoy made at start from random bytes: nothing hashes to it that anyone could know.
const DECOY_SALT = randomBytes(SALT_BYTES).toString('base64url')
const DECOY_KEY = randomBytes(KEY_BYTES).toString('base64url')

/**
 * How many password hashes this process has computed: tests compare the work an unknown email costs
 * with a known one's wrong password, without timing anything.
 */
export const hashingWork = { count: 0 }

let estimator: Promise<(password: string, words: string[]) => { score: number; warning: string }> | undefined

/**
 * zxcvbn-ts's estimator with its common-password and common-name lists (and English warnings), loaded on first use: the
 * dictionaries are a few megabytes, which a process that never sets a password should not hold.
 */
function loadEstimator() {
  estimator ??= (async () => {
    const [{ ZxcvbnFactory }, common, english] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
      import('@zxcvbn-ts/language-en'),
    ])
    // English only for the wording of its warnings; the common lists are the dictionary.
    const factory = new ZxcvbnFactory({
      dictionary: { ...common.dictionary },
      graphs: common.adjacencyGraphs,
      translations: english.translations,
    })
    return (password: string, words: string[]) => {
      const result = factory.check(password, words)
      return { score: result.score, warning: result.feedback.warning ?? '' }
    }
  })()
  return estimator
}

/**
 * Refuses a password too short, too long or too easy to guess, naming the field. `context` holds the
 * person's own words (email, name), which make a password weaker when it contains them.
 */
export async function assertStrongPassword(password: string, context: string[], field = 'password') {
  const refuse = (message: string) =>
    new AppError('invalid_input', `${field} ${message}`, { errors: [{ field, message }] })
  if ([...password].length < MIN_PASSWORD_LENGTH)
    throw refuse(`must be at least ${MIN_PASSWORD_LENGTH} characters long`)
  if (password.length > MAX_PASSWORD_LENGTH)
    throw refuse(`must be at most ${MAX_PASSWORD_LENGTH} characters long`)
  const lower = password.toLowerCase()
  const own = context
    .flatMap((c) => [c.toLowerCase(), c.toLowerCase().split('@')[0]])
    .filter((w) => w.length >= 3)
  if (own.some((w) => lower.includes(w))) throw refuse('must not contain your email address or name')
  const estimate = await loadEstimator()
  const words = context.flatMap((c) => c.toLowerCase().split(/[^a-z0-9]+/)).filter((w) => w.length >= 3)
  const { score, warning } = estimate(password.slice(0, 100), words)
  if (score < MIN_PASSWORD_SCORE)
    throw refuse(
      `is too easy to guess${warning ? ` (${warning.replace(/\.$/, '')})` : ''}: use a longer phrase of unrelated words`,
    )
}
