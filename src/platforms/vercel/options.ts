import { invalidInput } from '../../core/errors.ts'
import type { FieldOption, OptionsSource } from '../../core/tools/define.ts'

const PAGE_SIZE = 20

/** Vercel's `pagination.next` is a millisecond timestamp, passed back as `until`. */
function untilOf(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined
  if (!/^\d{1,16}$/.test(cursor))
    throw invalidInput([{ field: 'cursor', message: 'must be a next_cursor returned by these options' }])
  return Number(cursor)
}

const nextOf = (pagination: { next?: number | null } | undefined) =>
  pagination?.next ? String(pagination.next) : null

/** The account's projects, most recently updated first; q searches their names (Vercel's own search). */
export const projectOptions: OptionsSource = {
  async list({ api }, { q, cursor }) {
    const body = await api.get('/v9/projects', {
      limit: PAGE_SIZE,
      until: untilOf(cursor),
      search: q || undefined,
    })
    const options = (body.projects as Array<{ id: string; name: string; framework?: string | null }>).map(
      (p): FieldOption => ({
        value: p.id,
        label: p.name,
        ...(p.framework ? { description: p.framework } : {}),
      }),
    )
    return { options, next_cursor: nextOf(body.pagination) }
  },
}

/**
 * Recent deployments, newest first, optionally only in some states. Vercel cannot search
 * deployments, so q filters each page by name, url or id: a page may come back short.
 */
function deploymentsIn(states?: string): OptionsSource {
  return {
    async list({ api }, { q, cursor }) {
      const body = await api.get('/v6/deployments', {
        limit: PAGE_SIZE,
        until: untilOf(cursor),
        state: states,
      })
      const words = q.toLowerCase().split(/\s+/).filter(Boolean)
      const options = (
        body.deployments as Array<{
          uid: string
          name: string
          url: string
          state?: string
          readyState?: string
          target?: string | null
        }>
      )
        .filter((d) => words.every((w) => `${d.uid} ${d.name} ${d.url}`.toLowerCase().includes(w)))
        .map((d): FieldOption => ({
          value: d.uid,
          label: `${d.name}: ${d.url}`,
          description: [d.readyState ?? d.state, d.target ?? 'preview'].filter(Boolean).join(', '),
        }))
      return { options, next_cursor: nextOf(body.pagination) }
    },
  }
}

/** Every recent deployment. */
export const deploymentOptions = deploymentsIn()

/** Deployments that can still be cancelled: queued, initializing or building. */
export const cancellableDeploymentOptions = deploymentsIn('QUEUED,INITIALIZING,BUILDING')
