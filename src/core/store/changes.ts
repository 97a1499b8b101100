import pg from 'pg'

/**
 * Tells every process sharing the store that a cached row changed (an API key deleted, an
 * integration disconnected or refreshed), so their in-process caches drop it at once instead of
 * serving it until their time limit runs out.
 */
export interface ChangeFeed {
  publish(kind: string, id: string): Promise<void>
  subscribe(handler: (kind: string, id: string) => void): void
  close(): Promise<void>
}

/** PGlite: a data directory belongs to one process, so telling this process is telling all. */
export class LocalChangeFeed implements ChangeFeed {
  private readonly handlers: Array<(kind: string, id: string) => void> = []

  async publish(kind: string, id: string): Promise<void> {
    for (const handler of this.handlers) handler(kind, id)
  }

  subscribe(handler: (kind: string, id: string) => void): void {
    this.handlers.push(handler)
  }

  async close(): Promise<void> {}
}

const CHANNEL = 'switchyard_changes'
const RELISTEN_DELAY_MS = 1_000

/**
 * PostgreSQL LISTEN/NOTIFY on one dedicated connection. A notification can be lost while that
 * connection is down; the caches' time limit still bounds how stale a row can be, and the feed
 * listens again as soon as it can.
 */
export class PostgresChangeFeed implements ChangeFeed {
  private readonly handlers: Array<(kind: string, id: string) => void> = []
  private listener: pg.Client | null = null
  private closed = false

  private constructor(
    private readonly databaseUrl: string,
    private readonly pool: pg.Pool,
  ) {}

  static async open(databaseUrl: string, pool: pg.Pool): Promise<PostgresChangeFeed> {
    const feed = new PostgresChangeFeed(databaseUrl, pool)
    await feed.listen()
    return feed
  }

  async publish(kind: string, id: string): Promise<void> {
    await this.pool.query('select pg_notify($1, $2)', [CHANNEL, `${kind}:${id}`])
  }

  subscribe(handler: (kind: string, id: string) => void): void {
    this.handlers.push(handler)
  }

  async close(): Promise<void> {
    this.closed = true
    await this.listener?.end().catch(() => {})
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl })
    client.on('notification', (message) => {
      const payload = message.payload ?? ''
      const at = payload.indexOf(':')
      if (at > 0) for (const handler of this.handlers) handler(payload.slice(0, at), payload.slice(at + 1))
    })
    client.on('error', () => {
      this.listener = null
      void client.end().catch(() => {})
      this.relistenSoon()
    })
    try {
      await client.connect()
      await client.query(`listen ${CHANNEL}`)
    } catch (err) {
      await client.end().catch(() => {})
      throw err
    }
    this.listener = client
  }

  private relistenSoon(): void {
    if (this.closed) return
    setTimeout(() => void this.listen().catch(() => this.relistenSoon()), RELISTEN_DELAY_MS).unref()
  }
}
