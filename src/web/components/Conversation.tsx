/** A comment as Get Ticket Info returns it: the author named, attachments listed. */
interface Comment {
  id: number
  body: string
  public: boolean
  created_at: string
  author?: { name: string; email: string | null } | null
  attachments?: Array<{ id: number; file_name: string; content_url: string; size: number }>
}

/** The comments of an output, when it has a conversation: a non-empty `comments` list of authored bodies. */
export function commentsOf(output: unknown): Comment[] | null {
  const comments = (output as { comments?: unknown } | null)?.comments
  if (!Array.isArray(comments) || comments.length === 0) return null
  const looksLikeComments = comments.every(
    (c) =>
      c &&
      typeof c === 'object' &&
      typeof c.body === 'string' &&
      typeof c.public === 'boolean' &&
      typeof c.created_at === 'string',
  )
  return looksLikeComments ? (comments as Comment[]) : null
}

const when = (iso: string) => {
  const date = new Date(iso)
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
}

const size = (bytes: number) =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(0)} KB`
      : `${(bytes / 1024 / 1024).toFixed(1)} MB`

/** A ticket's comments read top to bottom as a conversation; internal notes look different from public replies. */
export function Conversation({ comments }: { comments: Comment[] }) {
  return (
    <section className="conversation" aria-label="Conversation">
      <h4>Conversation ({comments.length})</h4>
      <ol>
        {comments.map((c) => (
          <li
            key={c.id}
            className={c.public ? 'comment comment-public' : 'comment comment-internal'}
            data-testid="comment"
          >
            <p className="comment-head">
              <strong>{c.author?.name ?? 'Unknown author'}</strong>
              {c.author?.email && <span className="muted"> {c.author.email}</span>}
              {' · '}
              <time dateTime={c.created_at}>{when(c.created_at)}</time>
              {' · '}
              <span className="comment-visibility">{c.public ? 'Public reply' : 'Internal note'}</span>
            </p>
            <p className="comment-body">{c.body}</p>
            {c.attachments && c.attachments.length > 0 && (
              <ul className="comment-attachments" aria-label="Attachments">
                {c.attachments.map((a) => (
                  <li key={a.id}>
                    <a href={a.content_url} target="_blank" rel="noreferrer">
                      {a.file_name}
                    </a>{' '}
                    <span className="muted">({size(a.size)})</span>
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
    </section>
  )
}
