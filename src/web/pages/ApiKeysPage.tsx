import { useEffect, useState, type FormEvent } from 'react'
import { api, ApiError, type ApiKey, type CreatedApiKey } from '../api.ts'
import { Banner } from '../components/Banner.tsx'
import { ConfirmButton } from '../components/ConfirmButton.tsx'
import { FieldErrorText } from '../components/FieldErrorText.tsx'
import { ProblemMessage } from '../components/ProblemMessage.tsx'
import { ShownOnce } from '../components/ShownOnce.tsx'
import { groupFieldErrors } from '../field-errors.ts'

const formatDate = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'Never')

export function ApiKeysPage() {
  const [keys, setKeys] = useState<ApiKey[] | null>(null)
  const [loadError, setLoadError] = useState<unknown>(null)
  const [created, setCreated] = useState<CreatedApiKey | null>(null)
  const [rowError, setRowError] = useState<{ id: string; error: unknown } | null>(null)

  useEffect(() => {
    document.title = 'API keys · Switchyard'
    api.listApiKeys().then(setKeys, setLoadError)
  }, [])

  const onCreated = (k: CreatedApiKey) => {
    setCreated(k)
    setKeys((list) => [
      ...(list ?? []),
      { id: k.id, name: k.name, prefix: k.prefix, created_at: new Date().toISOString(), last_used_at: null },
    ])
  }

  const remove = async (id: string) => {
    setRowError(null)
    try {
      await api.deleteApiKey(id)
      setKeys((list) => list?.filter((k) => k.id !== id) ?? null)
      if (created?.id === id) setCreated(null)
    } catch (error) {
      setRowError({ id, error })
    }
  }

  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>API keys</h1>
      </div>
      <p className="muted">
        Agents and scripts authenticate with an API key (<code>Authorization: Bearer sy_…</code>).
      </p>

      {created && <NewKey created={created} onDone={() => setCreated(null)} />}
      <CreateKeyForm onCreated={onCreated} />

      {loadError !== null && <ProblemMessage error={loadError} />}
      {keys === null && loadError === null && <p className="muted">Loading keys…</p>}
      {keys?.length === 0 && <p className="empty">No API keys.</p>}
      {keys && keys.length > 0 && (
        <table className="key-table">
          <caption className="visually-hidden">Your API keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.id} data-key-id={k.id}>
                <td data-label="Name">{k.name}</td>
                <td data-label="Key">
                  <code>{k.prefix}…</code>
                </td>
                <td data-label="Created">{formatDate(k.created_at)}</td>
                <td data-label="Last used">{formatDate(k.last_used_at)}</td>
                <td className="cell-actions">
                  <ConfirmButton
                    question={`Delete “${k.name}”? Anything using it stops working.`}
                    confirmLabel="Delete"
                    onConfirm={() => remove(k.id)}
                    danger
                  >
                    Delete
                  </ConfirmButton>
                  {rowError?.id === k.id && <ProblemMessage error={rowError.error} />}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  )
}

function CreateKeyForm({ onCreated }: { onCreated: (k: CreatedApiKey) => void }) {
  const [name, setName] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)

  const grouped = groupFieldErrors(error instanceof ApiError ? error.problem.errors : undefined, '', ['name'])
  // Field paths may be bare (`name`) or prefixed (`body.name`); accept both.
  const nameErrors =
    grouped.byField.name ??
    groupFieldErrors(error instanceof ApiError ? error.problem.errors : undefined, 'body', ['name']).byField
      .name

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    try {
      onCreated(await api.createApiKey(name.trim()))
      setName('')
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }

  return (
    <form className="panel create-key" onSubmit={submit} noValidate>
      <h2>Create a key</h2>
      <div className="field field-inline">
        <label htmlFor="key-name">Key name</label>
        <input
          id="key-name"
          name="name"
          type="text"
          autoComplete="off"
          placeholder="e.g. support agent"
          value={name}
          aria-invalid={nameErrors ? true : undefined}
          aria-describedby={nameErrors ? 'key-name-error' : undefined}
          onChange={(e) => setName(e.target.value)}
        />
        <button type="submit" className="button-primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create key'}
        </button>
      </div>
      <FieldErrorText id="key-name-error" messages={nameErrors} />
      {error !== null && !nameErrors && <ProblemMessage error={error} />}
    </form>
  )
}

function NewKey({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  return (
    <Banner kind="success" title={`Key “${created.name}” created`} onDismiss={onDone}>
      <p className="warning">
        <strong>Copy it now.</strong> This is the only time the full key is shown.
      </p>
      <ShownOnce value={created.key} testId="new-api-key" what="key" />
    </Banner>
  )
}
