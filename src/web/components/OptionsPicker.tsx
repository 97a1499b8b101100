import { useEffect, useId, useRef, useState, type InputHTMLAttributes, type KeyboardEvent } from 'react'
import { api, ApiError, type ToolFieldOption } from '../api.ts'
import { currentEntry, entriesOf, withEntry } from '../picker-text.ts'

/** Where a field's options come from: the step (or trigger), the chosen integration and its dependencies' values. */
export interface PickerSource {
  /** The declaration's address, `/v1/tools/{id}` or `/v1/triggers/{id}`: options are at `{optionsBase}/options/{field}`. */
  optionsBase: string
  integrationId: string
  field: string
  /** Names and current values of the fields the options depend on, in declaration order. */
  depends: Array<{ name: string; label: string; value: string }>
}

interface Props {
  source: PickerSource
  /** A list field (labels, members): picking adds to a comma-separated value. */
  multiple: boolean
  value: string
  onChange: (value: string) => void
  /** The text input's attributes from the form (id, name, aria-*), so its label and errors stay wired. */
  inputProps: InputHTMLAttributes<HTMLInputElement>
}

type Loaded =
  | { state: 'idle' }
  | { state: 'loading' }
  | { state: 'ready'; options: ToolFieldOption[]; next: string | null }
  | { state: 'failed'; message: string }

const SEARCH_DELAY_MS = 250

/**
 * A searchable picker over a field's options (the ARIA 1.2 combobox pattern): typing searches the
 * connected account through GET /v1/tools/{id}/options/{field} (or a trigger's), arrow keys and Enter choose, and
 * whatever is typed stays the value, so a pasted id works as before (docs/tool-options.md).
 */
export function OptionsPicker({ source, multiple, value, onChange, inputProps }: Props) {
  const listId = useId()
  const [open, setOpen] = useState(false)
  const [loaded, setLoaded] = useState<Loaded>({ state: 'idle' })
  const [active, setActive] = useState(-1)
  // Labels of every option seen, so a chosen id reads as the thing it names.
  const [known, setKnown] = useState<Record<string, string>>({})
  const missing = source.depends.filter((d) => d.value === '')
  const dependsKey = source.depends.map((d) => `${d.name}=${d.value}`).join('&')
  const q = multiple ? currentEntry(value) : value.trim()
  // What was typed is a search only once it differs from a chosen option's value.
  const search = known[q] !== undefined ? '' : q
  const aborter = useRef<AbortController | null>(null)
  // A `{{ }}` template (an agent step's input) is worked out when the step runs: nothing to search.
  const templated = value.includes('{{')
  const shown = open && !templated

  const load = async (cursor?: string) => {
    aborter.current?.abort()
    const controller = new AbortController()
    aborter.current = controller
    if (!cursor) setLoaded({ state: 'loading' })
    const params: Record<string, string> = { integration: source.integrationId }
    if (search) params.q = search
    if (cursor) params.cursor = cursor
    for (const d of source.depends) params[d.name] = d.value
    try {
      const page = await api.fieldOptions(source.optionsBase, source.field, params, controller.signal)
      if (controller.signal.aborted) return
      setKnown((k) => ({ ...k, ...Object.fromEntries(page.options.map((o) => [String(o.value), o.label])) }))
      setLoaded((prev) => ({
        state: 'ready',
        options: cursor && prev.state === 'ready' ? [...prev.options, ...page.options] : page.options,
        next: page.next_cursor,
      }))
    } catch (error) {
      if (controller.signal.aborted) return
      setLoaded({
        state: 'failed',
        message:
          error instanceof ApiError
            ? (error.problem.detail ?? error.problem.title ?? 'Could not load the options.')
            : 'Could not load the options.',
      })
    }
  }

  // Reload when the search, the integration or a dependency changes, while the list is open.
  useEffect(() => {
    if (!shown || missing.length > 0 || !source.integrationId) return
    const timer = setTimeout(() => void load(), loaded.state === 'idle' ? 0 : SEARCH_DELAY_MS)
    return () => clearTimeout(timer)
    // load reads these same values; it is not a dependency of its own.
  }, [shown, search, dependsKey, source.integrationId])

  // A dependency changed: what was loaded belongs to the old one.
  useEffect(() => {
    setLoaded({ state: 'idle' })
    setActive(-1)
  }, [dependsKey, source.integrationId])

  useEffect(() => () => aborter.current?.abort(), [])

  // A value set before any list was opened (a stored configuration, an edited step) reads as an id
  // until its label is known: the first page of options is asked once, quietly, to name it.
  const presetUnknown = (multiple ? entriesOf(value) : [value.trim()]).some(
    (v) => v !== '' && !v.includes('{{') && known[v] === undefined,
  )
  useEffect(() => {
    if (!presetUnknown || missing.length > 0 || !source.integrationId) return
    const controller = new AbortController()
    const params: Record<string, string> = { integration: source.integrationId }
    for (const d of source.depends) params[d.name] = d.value
    api.fieldOptions(source.optionsBase, source.field, params, controller.signal).then(
      (page) =>
        setKnown((k) => ({
          ...k,
          ...Object.fromEntries(page.options.map((o) => [String(o.value), o.label])),
        })),
      () => {},
    )
    return () => controller.abort()
    // Asked once when a value is unnamed, and again when where the options come from changes; not on every keystroke.
  }, [presetUnknown, dependsKey, source.integrationId, source.optionsBase])

  const options = loaded.state === 'ready' ? loaded.options : []
  const more = loaded.state === 'ready' && loaded.next !== null
  const count = options.length + (more ? 1 : 0)

  const choose = (option: ToolFieldOption) => {
    const chosen = String(option.value)
    onChange(multiple ? withEntry(value, chosen) : chosen)
    setActive(-1)
    if (!multiple) setOpen(false)
  }

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault()
      if (!open) return setOpen(true)
      if (count === 0) return
      setActive((i) => (e.key === 'ArrowDown' ? (i + 1) % count : i <= 0 ? count - 1 : i - 1))
    } else if (e.key === 'Enter' && shown && active >= 0) {
      e.preventDefault()
      if (active < options.length) choose(options[active])
      else if (loaded.state === 'ready' && loaded.next) void load(loaded.next)
    } else if (e.key === 'Escape' && open) {
      e.preventDefault()
      setOpen(false)
      setActive(-1)
    }
  }

  const optionId = (i: number) => `${listId}-option-${i}`
  const chosenId = `${listId}-chosen`
  const chosen = new Set(multiple ? entriesOf(value) : [value.trim()])
  const chosenLabels = [...chosen].filter((v) => known[v] !== undefined).map((v) => known[v])
  return (
    <div className="picker">
      <input
        {...inputProps}
        type="text"
        autoComplete="off"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={shown}
        aria-controls={listId}
        aria-activedescendant={shown && active >= 0 ? optionId(active) : undefined}
        aria-describedby={
          [chosenLabels.length > 0 ? chosenId : '', inputProps['aria-describedby'] ?? '']
            .filter(Boolean)
            .join(' ') || undefined
        }
        placeholder={
          missing.length > 0
            ? `Choose the ${missing[0].label.toLowerCase()} first, or paste an id`
            : 'Search, or paste an id'
        }
        value={value}
        onChange={(e) => {
          onChange(e.target.value)
          setOpen(true)
          setActive(-1)
        }}
        // Opened by a click, typing or the arrow keys, not by focus alone: tabbing through the form
        // (or a confirmation asked below it) must not find a list laid over the next fields.
        onClick={() => setOpen(true)}
        onBlur={() => setOpen(false)}
        onKeyDown={onKeyDown}
      />
      {chosenLabels.length > 0 && (
        <p className="picker-chosen" id={chosenId} data-testid="picker-chosen">
          {chosenLabels.join(', ')}
        </p>
      )}
      <ul
        id={listId}
        role="listbox"
        className="picker-list"
        hidden={!shown}
        aria-label={`${inputProps.name ?? 'field'} options`}
      >
        {missing.length > 0 && (
          <li className="picker-note">
            Choose the {missing.map((d) => d.label.toLowerCase()).join(' and ')} first.
          </li>
        )}
        {missing.length === 0 && loaded.state === 'loading' && <li className="picker-note">Loading…</li>}
        {loaded.state === 'failed' && <li className="picker-note picker-error">{loaded.message}</li>}
        {loaded.state === 'ready' && options.length === 0 && (
          <li className="picker-note">
            {search ? `Nothing matches “${search}”.` : 'Nothing to choose from.'}
          </li>
        )}
        {options.map((o, i) => (
          <li
            key={String(o.value)}
            id={optionId(i)}
            role="option"
            aria-selected={i === active}
            data-chosen={chosen.has(String(o.value)) || undefined}
            className={[
              'picker-option',
              i === active ? 'active' : '',
              chosen.has(String(o.value)) ? 'chosen' : '',
            ]
              .filter(Boolean)
              .join(' ')}
            // mousedown, not click: the input's blur would close the list first.
            onMouseDown={(e) => {
              e.preventDefault()
              choose(o)
            }}
          >
            <span className="picker-label">{o.label}</span>
            {o.description && <span className="picker-description">{o.description}</span>}
          </li>
        ))}
        {more && (
          <li
            id={optionId(options.length)}
            role="option"
            aria-selected={active === options.length}
            className={
              active === options.length ? 'picker-option picker-more active' : 'picker-option picker-more'
            }
            onMouseDown={(e) => {
              e.preventDefault()
              if (loaded.state === 'ready' && loaded.next) void load(loaded.next)
            }}
          >
            More…
          </li>
        )}
      </ul>
    </div>
  )
}
