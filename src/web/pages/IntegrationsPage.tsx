import { useCallback, useEffect, useRef, useState } from 'react'
import { api, type Integration, type Platform } from '../api.ts'
import { AddIntegration } from '../components/AddIntegration.tsx'
import { DocsLink } from '../components/DocsLink.tsx'
import { PopupStatus } from '../components/PopupStatus.tsx'
import { StatusBadge } from '../components/Badges.tsx'
import { Banner } from '../components/Banner.tsx'
import { ConfirmButton } from '../components/ConfirmButton.tsx'
import { CredentialsForm } from '../components/CredentialsForm.tsx'
import { ProblemMessage } from '../components/ProblemMessage.tsx'
import { Troubleshooting } from '../components/Troubleshooting.tsx'
import { connectResultFromEvent } from '../connect-popup.ts'
import { authorizesInPopup, titlesOf, usePlatforms } from '../platform-titles.ts'
import { useConnectPopup } from '../use-connect-popup.ts'
import { navigate } from '../router.ts'
import { parseConnectResult, withQuery } from '../url-state.ts'

const SEARCH_DELAY_MS = 250

type Connected =
  { state: 'loading' } | { state: 'done'; integration: Integration } | { state: 'failed'; error: unknown }

export function IntegrationsPage({ search }: { search: string }) {
  const result = parseConnectResult(search)
  // Sent here by a Reconnect action elsewhere (a step run on a disconnected integration).
  const reconnectId = new URLSearchParams(search).get('reconnect')
  const [integrations, setIntegrations] = useState<Integration[] | null>(null)
  const [loadError, setLoadError] = useState<unknown>(null)
  const platforms = usePlatforms()
  const platformTitles = titlesOf(platforms)
  const popupPlatforms = new Set((platforms ?? []).filter(authorizesInPopup).map((p) => p.id))
  const [adding, setAdding] = useState(false)
  const [connected, setConnected] = useState<Connected | null>(null)
  // An integration connected in place (pasted credentials): the banner needs no second request.
  const justConnected = useRef<Integration | null>(null)

  // A page at a time, searched by the server (docs/rest-api.md, "Lists are paged").
  const [query, setQuery] = useState('')
  const [next, setNext] = useState<string | null>(null)
  const [loadingMore, setLoadingMore] = useState(false)
  const searched = useRef('')
  const load = useCallback(() => {
    const q = searched.current.trim() || undefined
    api.integrationsPage({ q }).then(
      (page) => {
        if (searched.current.trim() !== (q ?? '')) return // a newer search answers for itself
        setIntegrations(page.integrations)
        setNext(page.next_cursor)
        setLoadError(null)
      },
      (e) => setLoadError(e),
    )
  }, [])
  const showMore = async () => {
    if (!next) return
    setLoadingMore(true)
    try {
      const page = await api.integrationsPage({ q: searched.current.trim() || undefined, cursor: next })
      setIntegrations((list) => [
        ...(list ?? []),
        ...page.integrations.filter((i) => !list?.some((s) => s.id === i.id)),
      ])
      setNext(page.next_cursor)
    } catch (e) {
      setLoadError(e)
    } finally {
      setLoadingMore(false)
    }
  }

  useEffect(() => {
    document.title = 'Integrations · Switchyard'
  }, [])
  useEffect(() => {
    searched.current = query
    const timer = setTimeout(load, query ? SEARCH_DELAY_MS : 0)
    return () => clearTimeout(timer)
  }, [query, load])

  // A pop-up flow finished: the app puts its result in the address (App.tsx); the list is reloaded
  // here, as it changed on the server.
  useEffect(() => {
    const onMessage = (event: MessageEvent) => {
      if (!connectResultFromEvent(event, window.location.origin)) return
      justConnected.current = null
      load()
    }
    window.addEventListener('message', onMessage)
    return () => window.removeEventListener('message', onMessage)
  }, [load])

  useEffect(() => {
    if (!result.connected) {
      setConnected(null)
      return
    }
    const known = justConnected.current
    if (known?.id === result.connected) {
      setConnected({ state: 'done', integration: known })
      return
    }
    let live = true
    setConnected({ state: 'loading' })
    api.getIntegration(result.connected).then(
      (integration) => live && setConnected({ state: 'done', integration }),
      (error) => live && setConnected({ state: 'failed', error }),
    )
    return () => {
      live = false
    }
  }, [result.connected])

  const dismiss = () => navigate('/integrations', { replace: true })
  const replace = (updated: Integration) =>
    setIntegrations((list) => list?.map((i) => (i.id === updated.id ? updated : i)) ?? null)
  const remove = (id: string) => setIntegrations((list) => list?.filter((i) => i.id !== id) ?? null)
  // Connecting the same account again updates its integration, so replace it rather than add a twin.
  const upsert = (added: Integration) =>
    setIntegrations((list) =>
      list
        ? list.some((i) => i.id === added.id)
          ? list.map((i) => (i.id === added.id ? added : i))
          : [...list, added]
        : list,
    )
  const onConnected = (integration: Integration) => {
    justConnected.current = integration
    upsert(integration)
    setConnected({ state: 'done', integration })
    // Same banner as after the authorization flow; only the integration's id goes in the address.
    navigate(withQuery('/integrations', { connected: integration.id }), { replace: true })
  }

  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Integrations</h1>
        {!adding && (
          <button type="button" className="button-primary" onClick={() => setAdding(true)}>
            Add integration
          </button>
        )}
      </div>

      {connected?.state === 'done' && (
        <Banner kind="success" title={`Connected ${connected.integration.account_name}`} onDismiss={dismiss}>
          <p>
            Agents can now use tool steps on this{' '}
            {platformTitles[connected.integration.platform] ?? connected.integration.platform} account.
          </p>
        </Banner>
      )}
      {connected?.state === 'failed' && (
        <Banner
          kind="error"
          title="The account was connected, but its details could not be loaded."
          onDismiss={dismiss}
        >
          <ProblemMessage error={connected.error} />
        </Banner>
      )}
      {result.error && (
        <Banner kind="error" title="The account was not connected" onDismiss={dismiss}>
          <p className="banner-message">{result.error.message}</p>
          <Troubleshooting rules={result.error.troubleshooting} applies={result.error.applies} />
        </Banner>
      )}

      {adding && (
        <AddIntegration
          onCancel={() => setAdding(false)}
          onConnected={onConnected}
          onAuthorized={() => setAdding(false)}
        />
      )}

      <input
        type="search"
        className="list-search"
        aria-label="Search integrations"
        placeholder="Search integrations by account name"
        value={query}
        maxLength={200}
        onChange={(e) => setQuery(e.target.value)}
      />
      {loadError !== null && <ProblemMessage error={loadError} />}
      {integrations === null && loadError === null && <p className="muted">Loading integrations…</p>}
      {integrations?.length === 0 && !adding && !query.trim() && (
        <p className="empty">No integrations yet. Add one to let agents work with your accounts.</p>
      )}
      {integrations?.length === 0 && query.trim() !== '' && (
        <p className="empty">No integration matches “{query}”.</p>
      )}
      {integrations &&
        integrations.length > 0 &&
        byPlatform(integrations, platforms).map(({ platform, items }) => {
          const title = platformTitles[platform] ?? platform
          return (
            // One section per platform: several accounts of one platform sit together, under its name.
            <section
              key={platform}
              className="integration-group"
              aria-labelledby={`integrations-${platform}`}
            >
              <div className="group-header">
                <h2 id={`integrations-${platform}`} className="group-title">
                  {title}
                </h2>
                <DocsLink page={`platforms/${platform}.md`}>Connecting {title}</DocsLink>
              </div>
              <ul className="item-list integration-list" aria-label={`${title} integrations`}>
                {items.map((i) => (
                  <IntegrationRow
                    key={i.id}
                    toReconnect={i.id === reconnectId}
                    integration={i}
                    platform={platforms?.find((p) => p.id === i.platform)}
                    platformTitle={title}
                    inPopup={popupPlatforms.has(i.platform)}
                    onUpdated={replace}
                    onDeleted={remove}
                  />
                ))}
              </ul>
            </section>
          )
        })}
      {next && (
        <button type="button" className="secondary" onClick={() => void showMore()} disabled={loadingMore}>
          {loadingMore ? 'Loading…' : 'Show more'}
        </button>
      )}
    </>
  )
}

/** Integrations grouped by platform, in the catalogue's order of platforms; each group in the order given. */
function byPlatform(
  integrations: readonly Integration[],
  platforms: readonly Platform[] | null | undefined,
): Array<{ platform: string; items: Integration[] }> {
  const order = (platforms ?? []).map((p) => p.id)
  const ids = [...new Set(integrations.map((i) => i.platform))]
  ids.sort(
    (a, b) =>
      (order.indexOf(a) === -1 ? Infinity : order.indexOf(a)) -
      (order.indexOf(b) === -1 ? Infinity : order.indexOf(b)),
  )
  return ids.map((platform) => ({ platform, items: integrations.filter((i) => i.platform === platform) }))
}

interface RowProps {
  integration: Integration
  /** Unknown until the platform list has loaded. */
  platform: Platform | undefined
  platformTitle: string
  /** The platform's authorize page opens in a pop-up window (Vercel). */
  inPopup: boolean
  onUpdated: (i: Integration) => void
  onDeleted: (id: string) => void
  /** Marked and its Reconnect button focused: the person came here to reconnect it. */
  toReconnect?: boolean
}

function IntegrationRow({
  integration: i,
  platform,
  platformTitle,
  inPopup,
  onUpdated,
  onDeleted,
  toReconnect,
}: RowProps) {
  const reconnectButton = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    if (!toReconnect) return
    reconnectButton.current?.scrollIntoView({ block: 'center' })
    reconnectButton.current?.focus()
  }, [toReconnect])
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  // Connected with pasted credentials: reconnect the same way, with new values of the same account.
  const [pasting, setPasting] = useState(false)
  const reconnectsWithCredentials =
    i.connected_with === 'credentials' && (platform?.credential_fields?.length ?? 0) > 0
  const popup = useConnectPopup(platformTitle)
  const popupBusy = popup.status.state === 'starting' || popup.status.state === 'waiting'

  const run = async (action: () => Promise<void>) => {
    setBusy(true)
    setError(null)
    try {
      await action()
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }

  const reconnect = () => {
    if (reconnectsWithCredentials) {
      setError(null)
      setPasting(true)
      return
    }
    if (inPopup) {
      setError(null)
      // Opened in the click's own handler, so that pop-up blockers let it through.
      popup.start(async () => {
        try {
          return (await api.reconnect(i.id)).connect_url
        } catch (err) {
          setError(err)
          throw err
        }
      })
      return
    }
    return run(async () => {
      const { connect_url } = await api.reconnect(i.id)
      window.location.href = connect_url
    })
  }
  // The confirmation names what will stop (its active triggers and agent steps), asked when it opens the page.
  const [usage, setUsage] = useState<string | null>(null)
  useEffect(() => {
    let live = true
    api
      .integrationUsage(i.id)
      .then((u) => live && setUsage(u.summary))
      .catch(() => undefined)
    return () => {
      live = false
    }
  }, [i.id, i.status])
  const stops = usage ? ` ${usage}: they stop, and its triggers are paused until you reconnect.` : ''
  const resume = () =>
    run(async () => {
      await api.resumeTriggers(i.id)
      onUpdated({ ...i, paused_triggers: 0 })
    })
  const disconnect = () => run(async () => onUpdated(await api.disconnect(i.id)))
  const remove = () =>
    run(async () => {
      await api.deleteIntegration(i.id)
      onDeleted(i.id)
    })

  return (
    <li
      className={toReconnect ? 'item item-to-reconnect' : 'item'}
      data-integration-id={i.id}
      data-status={i.status}
    >
      <div className="item-main">
        {/* The platform is named once, by the group's heading. */}
        <span className="item-title">{i.account_name}</span>
        <StatusBadge status={i.status} />
      </div>
      {i.status === 'needs_reconnection' && (
        <p className="help">Access expired or was revoked on {platformTitle}. Reconnect to restore it.</p>
      )}
      {i.status === 'disconnected' && toReconnect && (
        <p className="help">
          Disconnected: Switchyard holds no credentials for it. Reconnect to run steps on it again.
        </p>
      )}
      {i.status === 'active' && (i.paused_triggers ?? 0) > 0 && (
        <p className="help" role="status">
          {i.paused_triggers === 1 ? '1 trigger was' : `${i.paused_triggers} triggers were`} paused when this
          was disconnected.{' '}
          <button type="button" onClick={resume} disabled={busy}>
            Resume {i.paused_triggers === 1 ? 'it' : 'them'}
          </button>
        </p>
      )}
      <div className="item-actions">
        <button
          type="button"
          ref={reconnectButton}
          onClick={reconnect}
          disabled={busy || popupBusy || pasting}
          aria-expanded={reconnectsWithCredentials ? pasting : undefined}
        >
          {popup.status.state === 'waiting' ? `Waiting for ${platformTitle}…` : 'Reconnect'}
        </button>
        <ConfirmButton
          question={`Disconnect ${i.account_name}?${stops} Its credentials are erased.`}
          confirmLabel="Disconnect"
          onConfirm={disconnect}
          disabled={busy || i.status === 'disconnected'}
        >
          Disconnect
        </ConfirmButton>
        <ConfirmButton
          question={`Delete ${i.account_name}?${stops}`}
          confirmLabel="Delete"
          onConfirm={remove}
          disabled={busy}
          danger
        >
          Delete
        </ConfirmButton>
      </div>
      {pasting && platform && (
        <CredentialsForm
          platform={platform}
          reconnecting={i}
          heading
          autoFocus
          onCancel={() => setPasting(false)}
          onConnected={(updated) => {
            setPasting(false)
            onUpdated(updated)
          }}
        />
      )}
      {inPopup && (
        <PopupStatus
          title={platformTitle}
          status={popup.status}
          onFocus={popup.focus}
          onStop={popup.cancel}
        />
      )}
      {error !== null && <ProblemMessage error={error} />}
    </li>
  )
}
