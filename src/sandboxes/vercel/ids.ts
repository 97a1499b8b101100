import { BASE62, LOWER36, randomString } from '../kit/ids.ts'

export const base62 = (length: number): string => randomString(BASE62, length)
export const lower36 = (length: number): string => randomString(LOWER36, length)

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
