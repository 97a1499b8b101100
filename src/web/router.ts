// A tiny History-API router: the app has four pages, which does not justify a routing library.
import { useSyncExternalStore } from 'react'

const NAVIGATE_EVENT = 'switchyard:navigate'

export interface Location {
  pathname: string
  search: string
}

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  const current = window.location.pathname + window.location.search + window.location.hash
  if (to === current) return
  if (opts.replace) window.history.replaceState(null, '', to)
  else window.history.pushState(null, '', to)
  window.dispatchEvent(new Event(NAVIGATE_EVENT))
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange)
  window.addEventListener(NAVIGATE_EVENT, onChange)
  return () => {
    window.removeEventListener('popstate', onChange)
    window.removeEventListener(NAVIGATE_EVENT, onChange)
  }
}

// useSyncExternalStore needs a stable snapshot, so the location is read as one string.
const snapshot = () => window.location.pathname + window.location.search

export function useLocation(): Location {
  const href = useSyncExternalStore(subscribe, snapshot)
  const q = href.indexOf('?')
  return q === -1 ? { pathname: href, search: '' } : { pathname: href.slice(0, q), search: href.slice(q) }
}
