import { useEffect, useState, type ReactNode } from 'react'
import { api, type Integration } from '../api.ts'
import type { fieldAria } from './FieldShell.tsx'
import {
  firstChoice,
  loadChoices,
  MORE_TEXT,
  resolveCurrent,
  shownChoices,
  STATUS_NOTE,
  type PickerSource,
} from '../integration-picker.ts'

const source: PickerSource = {
  page: (params) => api.integrationsPage(params),
  get: (id) => api.getIntegration(id),
}

interface Props {
  name: string
  platform: string
  value: string
  onChange: (id: string) => void
  /** The select's id, aria-invalid and aria-describedby, as fieldAria gives them. */
  aria: ReturnType<typeof fieldAria>
  /** Chooses an active integration by itself while none is chosen (a step, a trigger). */
  chooseFirst?: boolean
  /** The label of the '' choice, when there is one (a model tool: "Any of my Trello accounts"). */
  anyLabel?: string
  /** What to say when the platform has no integration at all. */
  empty: ReactNode
}

/**
 * An integration select over one short page of the platform's integrations, searched by the server
 * (integration-picker.ts): the current choice is resolved by id, and "more — type to search" is
 * shown when the page is not all there is.
 */
export function IntegrationPicker({
  name,
  platform,
  value,
  onChange,
  aria,
  chooseFirst,
  anyLabel,
  empty,
}: Props) {
  const [q, setQ] = useState('')
  const [loaded, setLoaded] = useState<{ platform: string; choices: Integration[]; more: boolean } | null>(
    null,
  )
  const [current, setCurrent] = useState<Integration | null>(null)

  useEffect(() => {
    let live = true
    const wait = setTimeout(
      () =>
        loadChoices(source, platform, q).then(
          (page) => live && setLoaded({ platform, ...page }),
          () => live && setLoaded({ platform, choices: [], more: false }),
        ),
      q ? 250 : 0,
    )
    return () => {
      live = false
      clearTimeout(wait)
    }
  }, [platform, q])

  useEffect(() => {
    let live = true
    if (current?.id === value) return
    resolveCurrent(source, platform, value).then((found) => live && setCurrent(found))
    return () => {
      live = false
    }
  }, [platform, value])

  const page = loaded?.platform === platform ? loaded : null
  const choices = shownChoices(page?.choices ?? [], current?.id === value ? current : null)
  useEffect(() => {
    if (chooseFirst && !value && page && !q && page.choices.length) onChange(firstChoice(choices))
  }, [chooseFirst, value, page, q])

  if (!page) return <p className="muted">Loading integrations…</p>
  if (!q && page.choices.length === 0 && !value) return <>{empty}</>
  const searching = page.more || q !== ''
  return (
    <div className="integration-picker">
      {searching && (
        <input
          type="search"
          aria-label="Search integrations by account name"
          placeholder="Search accounts"
          value={q}
          onChange={(e) => setQ(e.target.value)}
        />
      )}
      <select {...aria} name={name} value={value} onChange={(e) => onChange(e.target.value)}>
        {value !== '' && !choices.some((i) => i.id === value) && (
          <option value={value}>{current === null ? 'An integration you no longer have' : '…'}</option>
        )}
        {value === '' && anyLabel === undefined && <option value="">Choose…</option>}
        {choices.map((i) => (
          <option key={i.id} value={i.id} data-status={i.status}>
            {i.account_name}
            {STATUS_NOTE[i.status] ?? ''}
          </option>
        ))}
        {anyLabel !== undefined && <option value="">{anyLabel}</option>}
        {page.more && (
          <option disabled value="__more">
            {MORE_TEXT}
          </option>
        )}
      </select>
    </div>
  )
}
