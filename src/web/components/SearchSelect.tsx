import { useId, useMemo, useState, type KeyboardEvent } from 'react'

export interface SearchOption {
  value: string
  label: string
  /** Options are listed under their group's heading, groups in the order they first appear. */
  group?: string
  description?: string
}

interface Props {
  id: string
  name: string
  options: readonly SearchOption[]
  value: string
  onChange: (value: string) => void
  placeholder?: string
  invalid?: boolean
  describedBy?: string
  disabled?: boolean
  /**
   * The options are the server's matches for what is typed (the runs list's agent filter): they are
   * shown as given, not filtered again here, and each change of the typed text is reported.
   */
  searched?: { onQuery: (query: string) => void; note?: string }
}

const MAX_SHOWN = 60

/** Words of the query must all appear in the option's label, group, value or description. */
export function matchesQuery(option: SearchOption, query: string): boolean {
  const haystack =
    `${option.label} ${option.group ?? ''} ${option.value} ${option.description ?? ''}`.toLowerCase()
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => haystack.includes(w))
}

/**
 * A select with a search box over a known list (tool steps, triggers), grouped by platform: the
 * ARIA 1.2 combobox pattern, like OptionsPicker but filtering locally. Shows the chosen option's
 * label, never its id.
 */
export function SearchSelect({
  id,
  name,
  options,
  value,
  onChange,
  placeholder,
  invalid,
  describedBy,
  disabled,
  searched,
}: Props) {
  const listId = useId()
  const chosen = options.find((o) => o.value === value)
  const [query, setQuery] = useState<string | null>(null)
  const [open, setOpen] = useState(false)
  const [active, setActive] = useState(-1)
  const text = query ?? (chosen ? (chosen.group ? `${chosen.label} · ${chosen.group}` : chosen.label) : '')
  const shown = useMemo(
    () => (query && !searched ? options.filter((o) => matchesQuery(o, query)) : options).slice(0, MAX_SHOWN),
    [options, query, searched],
  )
  const typed = (text: string | null) => {
    setQuery(text)
    searched?.onQuery(text ?? '')
  }

  const choose = (o: SearchOption) => {
    onChange(o.value)
    typed(null)
    setOpen(false)
    setActive(-1)
  }
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault()
      if (!open) return setOpen(true)
      if (shown.length === 0) return
      setActive((i) => (e.key === 'ArrowDown' ? (i + 1) % shown.length : i <= 0 ? shown.length - 1 : i - 1))
    } else if (e.key === 'Enter' && open) {
      e.preventDefault()
      const pick = active >= 0 ? shown[active] : shown.length === 1 ? shown[0] : undefined
      if (pick) choose(pick)
    } else if (e.key === 'Escape' && open) {
      e.preventDefault()
      setOpen(false)
      typed(null)
    }
  }

  let lastGroup: string | undefined
  return (
    <div className="picker search-select">
      <input
        id={id}
        name={name}
        type="text"
        autoComplete="off"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={listId}
        aria-activedescendant={open && active >= 0 ? `${listId}-${active}` : undefined}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        disabled={disabled}
        placeholder={placeholder ?? 'Search…'}
        value={text}
        onChange={(e) => {
          typed(e.target.value)
          setOpen(true)
          setActive(-1)
        }}
        onClick={() => setOpen(true)}
        onFocus={(e) => e.target.select()}
        onBlur={() => {
          setOpen(false)
          if (query !== null) typed(null)
        }}
        onKeyDown={onKeyDown}
      />
      <ul id={listId} role="listbox" className="picker-list" hidden={!open} aria-label={`${name} choices`}>
        {shown.length === 0 && (
          <li className="picker-note">{query ? `Nothing matches “${query}”.` : 'Nothing to choose from.'}</li>
        )}
        {shown.map((o, i) => {
          const heading = o.group && o.group !== lastGroup ? o.group : null
          lastGroup = o.group
          return [
            heading && (
              <li key={`g-${heading}`} role="presentation" className="picker-group">
                {heading}
              </li>
            ),
            <li
              key={o.value}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === active}
              className={['picker-option', i === active ? 'active' : '', o.value === value ? 'chosen' : '']
                .filter(Boolean)
                .join(' ')}
              onMouseDown={(e) => {
                e.preventDefault()
                choose(o)
              }}
            >
              <span className="picker-label">{o.label}</span>
              {o.description && <span className="picker-description">{o.description}</span>}
            </li>,
          ]
        })}
        {searched?.note && <li className="picker-note picker-more-note">{searched.note}</li>}
      </ul>
    </div>
  )
}
