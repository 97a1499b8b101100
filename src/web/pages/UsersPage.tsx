import { useEffect, useState, type FormEvent } from 'react'
import { ApiError, type Me, type Plan } from '../api.ts'
import { Banner } from '../components/Banner.tsx'
import { ConfirmButton } from '../components/ConfirmButton.tsx'
import { FieldErrorText } from '../components/FieldErrorText.tsx'
import { ProblemMessage } from '../components/ProblemMessage.tsx'
import { groupFieldErrors } from '../field-errors.ts'
import { RetentionPanel } from '../components/RetentionPanel.tsx'
import { OneTimeLink } from '../components/OneTimeLink.tsx'
import { ShownOnce } from '../components/ShownOnce.tsx'
import { peopleApi, type PasswordLink } from '../people-api.ts'
import {
  PLANS,
  ROLES,
  usersApi,
  type CreatedUser,
  type RemovedUser,
  type Role,
  type UserListing,
} from '../users-api.ts'

const formatDate = (iso: string) => new Date(iso).toLocaleDateString()
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/** Admins add users, change their plan or role, and remove them (docs/security.md). */
export function UsersPage({ me, onMeChanged }: { me: Me; onMeChanged: (me: Me) => void }) {
  const [users, setUsers] = useState<UserListing[] | null>(null)
  const [loadError, setLoadError] = useState<unknown>(null)
  const [created, setCreated] = useState<CreatedUser | null>(null)
  const [removed, setRemoved] = useState<RemovedUser | null>(null)
  const [rowError, setRowError] = useState<{ id: string; error: unknown } | null>(null)
  const [issued, setIssued] = useState<{ email: string; link: PasswordLink } | null>(null)

  useEffect(() => {
    document.title = 'Users · Switchyard'
    if (me.role === 'admin') usersApi.list().then(setUsers, setLoadError)
  }, [me.role])

  if (me.role !== 'admin') {
    return (
      <>
        <h1 tabIndex={-1}>Users</h1>
        <p>
          Only an admin can manage users. Ask an admin of this Switchyard to change your plan or add someone.
        </p>
      </>
    )
  }

  const replace = (user: UserListing) =>
    setUsers((list) => list?.map((u) => (u.id === user.id ? user : u)) ?? null)

  const change = async (user: UserListing, change: { plan?: Plan; role?: Role }) => {
    setRowError(null)
    try {
      const changed = await usersApi.change(user.id, change)
      replace(changed)
      // The plan badge in the top bar is the signed-in user's own.
      if (changed.id === me.id) onMeChanged({ ...me, plan: changed.plan, role: changed.role })
    } catch (error) {
      setRowError({ id: user.id, error })
    }
  }

  const issueLink = async (user: UserListing) => {
    setRowError(null)
    try {
      setIssued({ email: user.email, link: await peopleApi.passwordLink(user.id) })
      setCreated(null)
      setRemoved(null)
      window.scrollTo({ top: 0 })
    } catch (error) {
      setRowError({ id: user.id, error })
    }
  }

  const remove = async (user: UserListing) => {
    setRowError(null)
    try {
      setRemoved(await usersApi.remove(user.id))
      setUsers((list) => list?.filter((u) => u.id !== user.id) ?? null)
    } catch (error) {
      setRowError({ id: user.id, error })
    }
  }

  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Users</h1>
      </div>
      <p className="muted">
        Everyone who can use this Switchyard. Plans set what a user may do: free holds 3 integrations, pro 50,
        enterprise any number and Enterprise-only features. Admins manage users.
      </p>

      {created && <NewUser created={created} onDone={() => setCreated(null)} />}
      {issued && (
        <Banner
          kind="success"
          title={`A new ${issued.link.purpose === 'invitation' ? 'invitation' : 'password reset'} link for ${issued.email}`}
          onDismiss={() => setIssued(null)}
        >
          <OneTimeLink link={issued.link} email={issued.email} />
          <p className="muted">Their earlier links no longer work.</p>
        </Banner>
      )}
      {removed && (
        <Banner kind="success" title={`Removed ${removed.email}`} onDismiss={() => setRemoved(null)}>
          <p>
            {plural(removed.integrations_disconnected, 'integration')} disconnected and erased
            {removed.integrations_disconnected > 0 &&
              ` (${removed.revoked_at_platform} revoked at the platform)`}
            ; their API keys and sessions no longer work.
          </p>
        </Banner>
      )}
      <CreateUserForm
        onCreated={(c) => {
          setCreated(c)
          setRemoved(null)
          setIssued(null)
          setUsers((list) => [...(list ?? []), c.user])
        }}
      />

      {loadError !== null && <ProblemMessage error={loadError} />}
      {users === null && loadError === null && <p className="muted">Loading users…</p>}
      {users && (
        <table className="key-table user-table">
          <caption className="visually-hidden">Users</caption>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Plan</th>
              <th scope="col">Role</th>
              <th scope="col">Integrations</th>
              <th scope="col">Added</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => {
              const self = u.id === me.id
              return (
                <tr key={u.id} data-user-id={u.id}>
                  <td data-label="Email">
                    <span>
                      {u.email}
                      {self && <span className="muted"> (you)</span>}
                    </span>
                  </td>
                  <td data-label="Plan">
                    <select
                      aria-label={`Plan of ${u.email}`}
                      value={u.plan}
                      onChange={(e) => change(u, { plan: e.target.value as Plan })}
                    >
                      {PLANS.map((p) => (
                        <option key={p} value={p}>
                          {p}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td data-label="Role">
                    <select
                      aria-label={`Role of ${u.email}`}
                      value={u.role}
                      disabled={self}
                      title={self ? 'Another admin can change your role' : undefined}
                      onChange={(e) => change(u, { role: e.target.value as Role })}
                    >
                      {ROLES.map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td data-label="Integrations">{u.integrations}</td>
                  <td data-label="Added">{formatDate(u.created_at)}</td>
                  <td className="cell-actions">
                    {!self && (
                      <ConfirmButton
                        question={`Issue a new link for ${u.email} to choose a password? Their earlier links stop working.`}
                        confirmLabel="Issue link"
                        onConfirm={() => issueLink(u)}
                      >
                        Password link
                      </ConfirmButton>
                    )}
                    {self ? (
                      <span className="muted no-action">—</span>
                    ) : (
                      <ConfirmButton
                        question={`Remove ${u.email}? ${
                          u.integrations > 0
                            ? `Their ${plural(u.integrations, 'integration')} will be disconnected and their credentials, API keys and sessions erased.`
                            : 'Their API keys and sessions will be erased.'
                        }`}
                        confirmLabel="Remove"
                        onConfirm={() => remove(u)}
                        danger
                      >
                        Remove
                      </ConfirmButton>
                    )}
                    {rowError?.id === u.id && <ProblemMessage error={rowError.error} />}
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      )}
      <RetentionPanel />
    </>
  )
}

function CreateUserForm({ onCreated }: { onCreated: (c: CreatedUser) => void }) {
  const [email, setEmail] = useState('')
  const [plan, setPlan] = useState<Plan>('free')
  const [role, setRole] = useState<Role>('member')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)

  const problems = error instanceof ApiError ? error.problem.errors : undefined
  const grouped = groupFieldErrors(problems, '', ['email', 'plan', 'role'])

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    try {
      onCreated(await usersApi.create(email.trim(), plan, role))
      setEmail('')
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }

  const fieldsWithErrors = Object.keys(grouped.byField).length > 0
  return (
    <form className="panel create-user" onSubmit={submit} noValidate>
      <h2>Add a user</h2>
      <div className="field field-inline">
        <label htmlFor="user-email">Email</label>
        <input
          id="user-email"
          name="email"
          type="text"
          inputMode="email"
          autoComplete="off"
          placeholder="e.g. ada@example.com"
          value={email}
          aria-invalid={grouped.byField.email ? true : undefined}
          aria-describedby={grouped.byField.email ? 'user-email-error' : undefined}
          onChange={(e) => setEmail(e.target.value)}
        />
        <label htmlFor="user-plan">Plan</label>
        <select id="user-plan" value={plan} onChange={(e) => setPlan(e.target.value as Plan)}>
          {PLANS.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
        <label htmlFor="user-role">Role</label>
        <select id="user-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <button type="submit" className="button-primary" disabled={busy}>
          {busy ? 'Adding…' : 'Add user'}
        </button>
      </div>
      <FieldErrorText id="user-email-error" messages={grouped.byField.email} />
      <FieldErrorText id="user-plan-error" messages={grouped.byField.plan ?? grouped.byField.role} />
      {error !== null && !fieldsWithErrors && <ProblemMessage error={error} />}
    </form>
  )
}

function NewUser({ created, onDone }: { created: CreatedUser; onDone: () => void }) {
  return (
    <Banner kind="success" title={`Added ${created.user.email} (${created.user.plan})`} onDismiss={onDone}>
      <OneTimeLink link={created.invitation} email={created.user.email} />
      <p className="warning">
        Their first <strong>API key</strong>, for scripts and agents, is shown this once too: copy it now if
        they need one.
      </p>
      <ShownOnce value={created.api_key.key} testId="new-user-api-key" what="key" />
    </Banner>
  )
}
