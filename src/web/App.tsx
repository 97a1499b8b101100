import { useCallback, useEffect, useRef, useState } from 'react'
import { api, ApiError, onUnauthenticated, type Me } from './api.ts'
import { ProblemMessage } from './components/ProblemMessage.tsx'
import { Link } from './components/Link.tsx'
import { Nav } from './components/Nav.tsx'
import { AgentEditorPage } from './pages/AgentEditorPage.tsx'
import { AgentPage } from './pages/AgentPage.tsx'
import { AgentsPage } from './pages/AgentsPage.tsx'
import { ApiKeysPage } from './pages/ApiKeysPage.tsx'
import { ApprovalsPage } from './pages/ApprovalsPage.tsx'
import { IntegrationsPage } from './pages/IntegrationsPage.tsx'
import { LoginPage } from './pages/LoginPage.tsx'
import { ModelConnectionsPage } from './pages/ModelConnectionsPage.tsx'
import { AccountPage } from './pages/AccountPage.tsx'
import { WelcomePage } from './pages/WelcomePage.tsx'
import { RunPage } from './pages/RunPage.tsx'
import { RunsPage } from './pages/RunsPage.tsx'
import { ToolsPage } from './pages/ToolsPage.tsx'
import { UsersPage } from './pages/UsersPage.tsx'
import { connectResultFromEvent, connectResultPath } from './connect-popup.ts'
import { navigate, useLocation } from './router.ts'
import { matchRoute } from './routes.ts'
import { safeNextPath, withQuery } from './url-state.ts'

type Session =
  | { state: 'loading' }
  | { state: 'signed-in'; me: Me }
  | { state: 'signed-out' }
  | { state: 'failed'; error: unknown }

const currentPath = () => window.location.pathname + window.location.search

/** Sends the person to the sign-in page, remembering where they were. */
function goToLogin() {
  const here = currentPath()
  navigate(here.startsWith('/login') ? here : withQuery('/login', { next: here === '/' ? null : here }), {
    replace: true,
  })
}

export function App() {
  const { pathname, search } = useLocation()
  const [session, setSession] = useState<Session>({ state: 'loading' })
  const onLogin = pathname === '/login'
  // An invitation or reset link's page: open to anyone holding the link, signed in or not.
  const onWelcome = pathname === '/welcome'

  const loadMe = useCallback(() => {
    setSession({ state: 'loading' })
    api.me({ notifyUnauthenticated: false }).then(
      (me) => setSession({ state: 'signed-in', me }),
      (error) => {
        if (error instanceof ApiError && error.status === 401) {
          setSession({ state: 'signed-out' })
          if (window.location.pathname !== '/welcome') goToLogin()
        } else setSession({ state: 'failed', error })
      },
    )
  }, [])

  // Who is signed in is asked once on load; a 401 from any later call means the session ended.
  useEffect(() => {
    loadMe()
    return onUnauthenticated(() => {
      setSession({ state: 'signed-out' })
      goToLogin()
    })
  }, [loadMe])

  // A connect pop-up (Vercel) reports back: show its result on the integrations page, as the
  // redirect flow does, wherever this window is by now.
  useEffect(() => {
    const onMessage = (event: MessageEvent) => {
      const result = connectResultFromEvent(event, window.location.origin)
      if (!result) return
      const onIntegrations = /^\/(integrations\/?)?$/.test(window.location.pathname)
      navigate(connectResultPath(result), { replace: onIntegrations })
    }
    window.addEventListener('message', onMessage)
    return () => window.removeEventListener('message', onMessage)
  }, [])

  // Move focus to the new page's heading so screen readers announce the navigation.
  const firstRender = useRef(true)
  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false
      return
    }
    document.querySelector<HTMLElement>('main h1')?.focus()
  }, [pathname])

  const nextPath = safeNextPath(new URLSearchParams(search).get('next'))

  // Already signed in (e.g. the back button): the sign-in page just moves on.
  useEffect(() => {
    if (onLogin && session.state === 'signed-in') navigate(nextPath, { replace: true })
  }, [onLogin, session.state, nextPath])

  if (onWelcome) {
    return (
      <WelcomePage
        onSignedIn={(me) => {
          setSession({ state: 'signed-in', me })
          navigate('/integrations', { replace: true })
        }}
      />
    )
  }

  if (onLogin) {
    return (
      <LoginPage
        nextPath={nextPath}
        ssoError={new URLSearchParams(search).get('sso_error')}
        onSignedIn={(me) => {
          setSession({ state: 'signed-in', me })
          navigate(nextPath, { replace: true })
        }}
      />
    )
  }

  if (session.state === 'failed') {
    return (
      <main className="page" id="main">
        <h1>Switchyard is not answering</h1>
        <ProblemMessage error={session.error} />
        <button type="button" onClick={loadMe}>
          Try again
        </button>
      </main>
    )
  }
  if (session.state !== 'signed-in') {
    return (
      <main className="page" id="main" aria-busy="true">
        <p className="muted">Loading…</p>
      </main>
    )
  }

  const signOut = async () => {
    try {
      await api.signOut()
    } finally {
      setSession({ state: 'signed-out' })
      navigate('/login')
    }
  }

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <Nav me={session.me} pathname={pathname} onSignOut={signOut} />
      <main className="page" id="main">
        <Page
          pathname={pathname}
          search={search}
          me={session.me}
          onMeChanged={(me) => setSession({ state: 'signed-in', me })}
          onSignedOut={() => {
            setSession({ state: 'signed-out' })
            navigate('/login')
          }}
        />
      </main>
    </>
  )
}

function Page({
  pathname,
  search,
  me,
  onMeChanged,
  onSignedOut,
}: {
  pathname: string
  search: string
  me: Me
  onMeChanged: (me: Me) => void
  onSignedOut: () => void
}) {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname
  const route = matchRoute(path)
  switch (route?.page) {
    case 'agents':
      return <AgentsPage />
    case 'agent-new':
      return <AgentEditorPage />
    case 'agent-edit':
      return <AgentEditorPage key={route.id} id={route.id} />
    case 'agent':
      return <AgentPage key={route.id} id={route.id} tab={route.tab} search={search} />
    case 'runs':
      return <RunsPage search={search} />
    case 'run':
      return <RunPage key={route.id} id={route.id} />
  }
  switch (path) {
    case '/':
    case '/integrations':
      return <IntegrationsPage search={search} />
    case '/model-connections':
      return <ModelConnectionsPage me={me} search={search} />
    case '/tools':
      return <ToolsPage search={search} />
    case '/approvals':
      return <ApprovalsPage />
    case '/settings/keys':
      return <ApiKeysPage />
    case '/settings/account':
      return <AccountPage me={me} onMeChanged={onMeChanged} onSignedOut={onSignedOut} />
    case '/settings/users':
      return <UsersPage me={me} onMeChanged={onMeChanged} />
    default:
      return (
        <>
          <h1 tabIndex={-1}>Page not found</h1>
          <p>
            There is nothing at <code>{pathname}</code>. Go to <Link to="/integrations">Integrations</Link>.
          </p>
        </>
      )
  }
}
