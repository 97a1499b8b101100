interface Props {
  rules: readonly string[]
  /** Indexes of the rules known to apply: only these are shown. */
  applies?: readonly number[]
}

/**
 * The troubleshooting rules that apply to a failure. A platform's whole list is not shown as a list
 * of guesses: when the failure points at no rule, nothing is shown (the message says what happened).
 */
export function Troubleshooting({ rules, applies }: Props) {
  const applying = rules.filter((_, i) => applies?.includes(i))
  if (applying.length === 0) return null
  return (
    <div className="troubleshooting">
      <p className="troubleshooting-title">{applying.length === 1 ? 'What to check:' : 'Things to check:'}</p>
      <ul>
        {applying.map((rule) => (
          <li key={rule}>{rule}</li>
        ))}
      </ul>
    </div>
  )
}
