import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Account } from './model.ts'
import { SandboxStore } from './state.ts'

/**
 * Optional persistence (DESIGN.md §6: "State is in memory unless a data directory is given"):
 * the whole store as one JSON snapshot, written after every mutating request and on close.
 * Faults, the request log, rate-limit windows and the clock offset are not persisted.
 */

export const SNAPSHOT_FILE = 'zendesk-sandbox.json'
const SNAPSHOT_VERSION = 1

type Entries<K, V> = Array<[K, V]>

interface AccountSnapshot extends Omit<Account, 'users' | 'organizations' | 'tickets' | 'comments' | 'audits' | 'webhooks' | 'apiTokens' | 'deletedTickets'> {
  users: Entries<number, unknown>
  organizations: Entries<number, unknown>
  tickets: Entries<number, unknown>
  comments: Entries<number, unknown>
  audits: Entries<number, unknown>
  webhooks: Entries<string, unknown>
  apiTokens: Entries<string, unknown>
  deletedTickets?: Entries<number, unknown>
}

interface Snapshot {
  version: number
  counters: ReturnType<SandboxStore['counterValues']>
  accounts: AccountSnapshot[]
  clients: Entries<string, unknown>
  accessTokens: Entries<string, unknown>
  refreshTokens: Entries<string, unknown>
  codes: Entries<string, unknown>
  sessions: Entries<string, unknown>
}

export function snapshotStore(store: SandboxStore): Snapshot {
  return {
    version: SNAPSHOT_VERSION,
    counters: store.counterValues(),
    accounts: [...store.accounts.values()].map((account) => ({
      ...account,
      users: [...account.users],
      organizations: [...account.organizations],
      tickets: [...account.tickets],
      comments: [...account.comments],
      audits: [...account.audits],
      webhooks: [...account.webhooks],
      apiTokens: [...account.apiTokens],
      deletedTickets: [...account.deletedTickets],
    })),
    clients: [...store.clients],
    accessTokens: [...store.accessTokens],
    refreshTokens: [...store.refreshTokens],
    codes: [...store.codes],
    sessions: [...store.sessions],
  }
}

function fill<K, V>(target: Map<K, V>, entries: Entries<K, unknown>): void {
  for (const [key, value] of entries) target.set(key, value as V)
}

export function restoreStore(snapshot: Snapshot): SandboxStore {
  if (snapshot.version !== SNAPSHOT_VERSION) throw new Error(`unsupported Zendesk sandbox snapshot version ${snapshot.version}`)
  const store = new SandboxStore()
  store.restoreCounters(snapshot.counters)
  for (const saved of snapshot.accounts) {
    const account: Account = {
      ...saved,
      users: new Map(),
      organizations: new Map(),
      tickets: new Map(),
      comments: new Map(),
      audits: new Map(),
      webhooks: new Map(),
      apiTokens: new Map(),
      deletedTickets: new Map(),
    }
    fill(account.users, saved.users)
    fill(account.organizations, saved.organizations)
    fill(account.tickets, saved.tickets)
    fill(account.comments, saved.comments)
    fill(account.audits, saved.audits)
    fill(account.webhooks, saved.webhooks)
    fill(account.apiTokens, saved.apiTokens)
    fill(account.deletedTickets, saved.deletedTickets ?? [])
    store.accounts.set(account.subdomain, account)
  }
  fill(store.clients, snapshot.clients)
  fill(store.accessTokens, snapshot.accessTokens)
  fill(store.refreshTokens, snapshot.refreshTokens)
  fill(store.codes, snapshot.codes)
  fill(store.sessions, snapshot.sessions)
  return store
}

export function loadSnapshot(dataDir: string): SandboxStore | undefined {
  const file = join(dataDir, SNAPSHOT_FILE)
  if (!existsSync(file)) return undefined
  return restoreStore(JSON.parse(readFileSync(file, 'utf8')) as Snapshot)
}

/** Write-then-rename so a crash never leaves half a snapshot. */
export function saveSnapshot(dataDir: string, store: SandboxStore): void {
  mkdirSync(dataDir, { recursive: true })
  const file = join(dataDir, SNAPSHOT_FILE)
  const temporary = `${file}.tmp`
  writeFileSync(temporary, JSON.stringify(snapshotStore(store)))
  renameSync(temporary, file)
}
