import { randomBytes } from 'node:crypto'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const LOWER36 = '0123456789abcdefghijklmnopqrstuvwxyz'

function randomFrom(alphabet: string, length: number): string {
  const bytes = randomBytes(length)
  let out = ''
  for (let i = 0; i < length; i++) out += alphabet[(bytes[i] as number) % alphabet.length]
  return out
}

export const base62 = (length: number): string => randomFrom(BASE62, length)
export const lower36 = (length: number): string => randomFrom(LOWER36, length)

/** Vercel ids: a prefix and base62 (`dpl_` 28 chars, `prj_` 28, `team_` 24, `icfg_` 24) [CAP shapes]. */
export const deploymentId = (): string => `dpl_${base62(28)}`
export const projectId = (): string => `prj_${base62(28)}`
export const teamId = (): string => `team_${base62(24)}`
/** Captured user ids are bare base62; the sandbox adds `usr_` so ids are recognisable in logs (brief). */
export const userId = (): string => `usr_${base62(24)}`
export const configurationId = (): string => `icfg_${base62(24)}`
export const webhookId = (): string => `account_hook_${base62(20)}`
export const envId = (): string => base62(16)
export const eventId = (): string => `evt_${base62(24)}`
export const accessToken = (): string => base62(24)
