interface Props {
  rules: readonly string[]
  /** Indexes of the rules known to apply; they are marked and listed first. */
  applies?: readonly number[]
}

export function Troubleshooting({ rules, applies }: Props) {
  if (rules.length === 0) return null
  const applying = new Set(applies ?? [])
  const ordered = rules.map((rule, i) => ({ rule, i })).sort((a, b) => Number(applying.has(b.i)) - Number(applying.has(a.i)))
  return (
    <div className="troubleshooting">
      <p className="troubleshooting-title">Things to check:</p>
      <ul>
        {ordered.map(({ rule, i }) => (
          <li key={i} className={applying.has(i) ? 'applies' : undefined}>
            {applying.has(i) && <strong className="applies-tag">Likely cause: </strong>}
            {rule}
          </li>
        ))}
      </ul>
    </div>
  )
}
