import type { ReactNode } from 'react'

/**
 * A page of the manual this instance serves at /docs (the repository's docs/ folder), opened in a
 * new tab so the form being filled stays as it is.
 */
export function DocsLink({ page, anchor, children }: { page: string; anchor?: string; children: ReactNode }) {
  return (
    <a
      className="docs-link"
      href={`/docs/${page}${anchor ? `#${encodeURIComponent(anchor)}` : ''}`}
      target="_blank"
      rel="noreferrer"
    >
      {children}
    </a>
  )
}
