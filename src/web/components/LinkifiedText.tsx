import { splitLinks } from '../credentials.ts'

/**
 * Text whose http(s) addresses become links that open in a new tab (server messages name pages to
 * visit, such as Trello's token page). The text itself is left exactly as the server wrote it.
 */
export function LinkifiedText({ text }: { text: string }) {
  return (
    <>
      {splitLinks(text).map((part, i) =>
        'url' in part ? (
          <a
            key={i}
            href={part.url}
            target="_blank"
            rel="noopener noreferrer"
            title="Opens in a new tab"
            className="inline-url"
          >
            {part.text}
          </a>
        ) : (
          part.text
        ),
      )}
    </>
  )
}
