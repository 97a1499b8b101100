import { randomBytes } from 'node:crypto'
import pg from 'pg'

/**
 * A new, empty database on the PostgreSQL server `baseUrl` names, and a way to drop it. Tests and
 * benches that start services on PostgreSQL each take their own: every process on a database
 * executes any queued run in it, so suites sharing one would take each other's runs.
 */
export async function scratchDatabase(
  baseUrl: string,
  prefix = 'sy_test',
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`
  await onServer(baseUrl, (admin) => admin.query(`create database "${name}"`))
  const url = new URL(baseUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: () => onServer(baseUrl, (admin) => admin.query(`drop database if exists "${name}" with (force)`)),
  }
}

async function onServer(baseUrl: string, work: (admin: pg.Client) => Promise<unknown>): Promise<void> {
  const admin = new pg.Client({ connectionString: baseUrl })
  await admin.connect()
  try {
    await work(admin)
  } finally {
    await admin.end()
  }
}
