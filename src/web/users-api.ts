// The admin's user management (REST: /v1/users, docs/rest-api.md).
import { request, type CreatedApiKey, type Plan } from './api.ts'
import type { PasswordLink } from './people-api.ts'

export const PLANS: readonly Plan[] = ['free', 'pro', 'enterprise']
export type Role = 'admin' | 'member'
export const ROLES: readonly Role[] = ['admin', 'member']

export interface UserListing {
  id: string
  email: string
  name: string
  plan: Plan
  role: Role
  created_at: string
  integrations: number
}

export interface CreatedUser {
  user: UserListing
  /** The new user's first API key: shown once. */
  api_key: CreatedApiKey
  /** Their invitation link, to set a password: shown once. */
  invitation: PasswordLink
}

export interface RemovedUser {
  id: string
  email: string
  integrations_disconnected: number
  revoked_at_platform: number
}

const enc = encodeURIComponent

export const usersApi = {
  list: () => request<{ users: UserListing[] }>('GET', '/v1/users').then((r) => r.users),
  create: (email: string, plan: Plan, role: Role) =>
    request<CreatedUser>('POST', '/v1/users', { email, plan, role }),
  change: (id: string, change: { plan?: Plan; role?: Role }) =>
    request<UserListing>('PATCH', `/v1/users/${enc(id)}`, change),
  remove: (id: string) => request<RemovedUser>('DELETE', `/v1/users/${enc(id)}`),
}
