import { AppError, invalidInput } from '../../core/errors.ts'
import type { ApiClient } from '../../core/http/api-client.ts'
import type { FieldOption, OptionsSource } from '../../core/tools/define.ts'
import { searchTicketsPage } from './tools/search.ts'

const PAGE_SIZE = 25

const ticketOption = (t: { id: number; subject: string | null; status: string }): FieldOption => ({
  value: t.id,
  label: `#${t.id} ${t.subject || '(no subject)'}`,
  description: t.status,
})

function badCursor(): never {
  throw invalidInput([{ field: 'cursor', message: 'must be a next_cursor returned by these options' }])
}

/**
 * Recent tickets, newest first; q searches them with Zendesk's search (subject, description, and
 * "#7" or "7" finds ticket 7). The cursor says which listing made it, as List Tickets' does.
 */
export const ticketOptions: OptionsSource = {
  async list({ api }, { q, cursor }) {
    if (q === '') {
      if (cursor !== undefined && !cursor.startsWith('c:')) badCursor()
      const body = await api.get('/api/v2/tickets.json', {
        'page[size]': PAGE_SIZE,
        'page[after]': cursor?.slice(2),
        sort: '-id',
      })
      return {
        options: body.tickets.map(ticketOption),
        next_cursor: body.meta?.has_more && body.meta.after_cursor ? `c:${body.meta.after_cursor}` : null,
      }
    }
    const page = cursor === undefined ? 1 : /^p:\d{1,4}$/.test(cursor) ? Number(cursor.slice(2)) : badCursor()
    const id = /^#?(\d{1,15})$/.exec(q)?.[1]
    // A number is first of all that ticket; its text is searched too (a subject may hold numbers).
    const byId = id && page === 1 ? await ticketById(api, id) : undefined
    // Quotes keep the person's words words, not search operators (status:solved typed as text).
    const terms = q
      .split(/\s+/)
      .map((w) => `"${w.replace(/"/g, '')}"`)
      .join(' ')
    const result = await searchTicketsPage(api, terms, page, PAGE_SIZE)
    const found = result.tickets.filter((t: { id: number }) => t.id !== byId?.id)
    return {
      options: [...(byId ? [byId] : []), ...found].map(ticketOption),
      next_cursor: result.hasMore ? `p:${page + 1}` : null,
    }
  },
}

async function ticketById(api: ApiClient, id: string) {
  try {
    return (await api.get(`/api/v2/tickets/${id}.json`)).ticket
  } catch (err) {
    if (err instanceof AppError && err.extras.upstreamStatus === 404) return undefined
    throw err
  }
}

const AGENT_ROLES = ['agent', 'admin']

const userOption = (u: { id: number; name: string; email: string | null }): FieldOption => ({
  value: u.id,
  label: u.name,
  ...(u.email ? { description: u.email } : {}),
})

/** Agents and admins, who can be assigned tickets; q searches names and emails. */
export const assigneeOptions: OptionsSource = {
  async list({ api }, { q, cursor }) {
    if (q === '') {
      if (cursor !== undefined && !cursor.startsWith('c:')) badCursor()
      const body = await api.get('/api/v2/users.json?role[]=agent&role[]=admin', {
        'page[size]': PAGE_SIZE,
        'page[after]': cursor?.slice(2),
      })
      return {
        options: body.users.map(userOption),
        next_cursor: body.meta?.has_more && body.meta.after_cursor ? `c:${body.meta.after_cursor}` : null,
      }
    }
    const page = cursor === undefined ? 1 : /^p:\d{1,4}$/.test(cursor) ? Number(cursor.slice(2)) : badCursor()
    const body = await api.get('/api/v2/users/search.json', { query: q, page, per_page: PAGE_SIZE })
    const agents = (
      body.users as Array<{ id: number; name: string; email: string | null; role: string }>
    ).filter((u) => AGENT_ROLES.includes(u.role))
    return { options: agents.map(userOption), next_cursor: body.next_page ? `p:${page + 1}` : null }
  },
}
