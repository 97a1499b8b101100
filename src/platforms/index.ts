import type { PlatformDefinition } from '../core/platforms/types.ts'
import { trello } from './trello/platform.ts'
import { vercel } from './vercel/platform.ts'
import { zendesk } from './zendesk/platform.ts'

/** The platform registry: adding a platform means adding its folder and one line here. */
export const platforms: PlatformDefinition[] = [zendesk, trello, vercel]
