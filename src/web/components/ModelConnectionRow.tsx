import { useEffect, useState } from 'react'
import { modelConnectionsApi, protocolTitle, type ModelConnection } from '../model-connections-api.ts'
import { ConfirmButton } from './ConfirmButton.tsx'
import { ProblemMessage } from './ProblemMessage.tsx'

interface Props {
  connection: ModelConnection
  /** Whether this person may change or remove it: a shared one when they are an admin, else their own (core/models/connections.ts). */
  removable: boolean
  onRemoved: (id: string) => void
}

/** One model connection: what it is, whether a key is stored (never the key), and Remove. */
export function ModelConnectionRow({ connection: c, removable, onRemoved }: Props) {
  const [error, setError] = useState<unknown>(null)
  // The confirmation names the model agents that stop working, asked when the row shows.
  const [usage, setUsage] = useState<string | null>(null)
  useEffect(() => {
    if (!removable) return
    let live = true
    modelConnectionsApi
      .usage(c.id)
      .then((u) => live && setUsage(u.summary))
      .catch(() => undefined)
    return () => {
      live = false
    }
  }, [c.id, removable])

  // "Replace key": a password field, sent once and never shown again.
  const [replacing, setReplacing] = useState(false)
  const [newKey, setNewKey] = useState('')
  const [saving, setSaving] = useState(false)
  const [replaced, setReplaced] = useState(false)
  const keyId = `model-connection-${c.id}-new-key`
  const openReplace = (open: boolean) => {
    setReplacing(open)
    setNewKey('')
    setError(null)
    if (open) setReplaced(false)
  }
  const replaceKey = async (e: React.FormEvent) => {
    e.preventDefault()
    setError(null)
    setSaving(true)
    try {
      await modelConnectionsApi.update(c.id, { api_key: newKey })
      setNewKey('')
      setReplacing(false)
      setReplaced(true)
    } catch (err) {
      setError(err)
    } finally {
      setSaving(false)
    }
  }

  const remove = async () => {
    setError(null)
    try {
      await modelConnectionsApi.remove(c.id)
      onRemoved(c.id)
    } catch (e) {
      setError(e)
    }
  }

  return (
    <li className="item model-connection" data-model-connection-id={c.id}>
      <div className="item-main">
        <span className="item-title">{c.name}</span>
        {c.sandbox && <span className="tag">sandbox model</span>}
        {c.shared && c.owner === 'you' && <span className="tag">shared with everyone</span>}
        <span className="muted">{protocolTitle(c.protocol)}</span>
      </div>
      <dl className="model-connection-facts">
        <dt>Base URL</dt>
        <dd className="mono">
          <BreakableUrl url={c.base_url} />
        </dd>
        <dt>Key</dt>
        <dd>{c.sandbox ? 'None needed' : c.has_key ? 'Stored sealed, never shown' : 'None'}</dd>
      </dl>
      {c.sandbox && (
        <p className="help">
          The local model sandbox: it follows scripted rules and understands nothing. Free, no key, for trying
          model agents out.
        </p>
      )}
      {replaced && (
        <p className="saved-note" role="status">
          New key stored sealed. Runs in progress use it from their next model call.
        </p>
      )}
      {removable && !c.sandbox && replacing && (
        <form className="replace-key" onSubmit={replaceKey} aria-label={`Replace the key of ${c.name}`}>
          <div className="field">
            <label htmlFor={keyId}>New key</label>
            <input
              id={keyId}
              type="password"
              autoComplete="off"
              spellCheck={false}
              autoFocus
              required
              aria-describedby={`${keyId}-help`}
              value={newKey}
              onChange={(e) => setNewKey(e.target.value)}
            />
            <p className="help" id={`${keyId}-help`}>
              Sent once and stored sealed, like the key it replaces; it is never shown again.
            </p>
          </div>
          <div className="actions">
            <button type="submit" className="button-primary" disabled={saving}>
              {saving ? 'Saving…' : 'Save key'}
            </button>
            <button type="button" onClick={() => openReplace(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {removable && !replacing && (
        <div className="item-actions">
          {!c.sandbox && (
            <button type="button" onClick={() => openReplace(true)}>
              Replace key
            </button>
          )}
          <ConfirmButton
            question={`Remove ${c.name}?${usage ? ` ${usage}.` : ' No model agent uses it.'}`}
            confirmLabel="Remove"
            onConfirm={remove}
            danger
          >
            Remove
          </ConfirmButton>
        </div>
      )}
      {error !== null && <ProblemMessage error={error} />}
    </li>
  )
}

/**
 * A URL that wraps after its slashes on a narrow screen (…/openai/ then v1) rather than inside a word
 * (…/opena then i/v1); the text copied is the URL as it is.
 */
function BreakableUrl({ url }: { url: string }) {
  const parts = url.split(/(?<=\/)/)
  return (
    <>
      {parts.map((part, i) => (
        <span key={i}>
          {part}
          {i < parts.length - 1 && <wbr />}
        </span>
      ))}
    </>
  )
}
