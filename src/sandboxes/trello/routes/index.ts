import { ApiRouter } from '../router.ts'
import { actionRoutes } from './actions.ts'
import { boardRoutes } from './boards.ts'
import { cardRelationRoutes } from './card-relations.ts'
import { cardRoutes } from './cards.ts'
import { checklistRoutes } from './checklists.ts'
import { labelRoutes } from './labels.ts'
import { listRoutes } from './lists.ts'
import { memberRoutes } from './members.ts'
import { tokenRoutes } from './tokens.ts'
import { webhookRoutes } from './webhooks.ts'

/** Every `/1/...` API route. Token and webhook routes come before the `/1/tokens/{token}` catch. */
export const apiRouter = new ApiRouter([
  ...cardRoutes,
  ...cardRelationRoutes,
  ...boardRoutes,
  ...actionRoutes,
  ...listRoutes,
  ...checklistRoutes,
  ...labelRoutes,
  ...memberRoutes,
  ...webhookRoutes,
  ...tokenRoutes,
])
