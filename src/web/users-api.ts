// The admin's user management (REST: /v1/users, docs/rest-api.md).
import { request, type Plan } from './api.ts'
import type { Answer, RequestBody, Schema } from './api-shapes.ts'

export const PLANS: readonly Plan[] = ['free', 'pro', 'enterprise']
export type Role = Schema<'User'>['role']
export const ROLES: readonly Role[] = ['admin', 'member']

export type UserListing = Schema<'User'>
export type CreatedUser = Answer<'/v1/users', 'post', 201>
export type RemovedUser = Answer<'/v1/users/{id}', 'delete'>
export type UserChange = RequestBody<'/v1/users/{id}', 'patch'>

const enc = encodeURIComponent

export const usersApi = {
  list: () => request<{ users: UserListing[] }>('GET', '/v1/users').then((r) => r.users),
  create: (email: string, plan: Plan, role: Role) =>
    request<CreatedUser>('POST', '/v1/users', { email, plan, role }),
  change: (id: string, change: UserChange) => request<UserListing>('PATCH', `/v1/users/${enc(id)}`, change),
  remove: (id: string) => request<RemovedUser>('DELETE', `/v1/users/${enc(id)}`),
}
