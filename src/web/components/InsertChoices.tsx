/** Buttons that insert a template (`{{ inputs.x }}`…) at the cursor of the box they sit beside. */
export function InsertChoices({
  choices,
  label,
  onInsert,
}: {
  choices: ReadonlyArray<{ label: string; template: string }>
  /** What the group inserts into, for screen readers ("Insert into the instructions"). */
  label: string
  onInsert: (template: string) => void
}) {
  if (choices.length === 0) return null
  return (
    <div className="insert-choices" role="group" aria-label={label}>
      <span className="muted">Insert:</span>
      {choices.map((c) => (
        <button
          key={c.template}
          type="button"
          className="insert-choice"
          // mousedown keeps the box's focus and selection, so the template lands at the cursor.
          onMouseDown={(e) => e.preventDefault()}
          onClick={() => onInsert(c.template)}
        >
          {c.label}
        </button>
      ))}
    </div>
  )
}
