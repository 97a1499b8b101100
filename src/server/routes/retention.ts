import type { FastifyInstance } from 'fastify'
import { AppError } from '../../core/errors.ts'
import type { Services } from '../../services.ts'
import { callerOf } from '../auth.ts'

/** Retention is the operator's setting (docs/configuration.md); admins see it, members do not. */
export function retentionRoutes(app: FastifyInstance, services: Services) {
  app.get('/v1/retention', async (request) => {
    if (callerOf(request).role !== 'admin')
      throw new AppError('forbidden', 'only an admin can see how long runs are kept')
    return services.retention()
  })
}
