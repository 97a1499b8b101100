import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App.tsx'
import { relayConnectResultToOpener } from './connect-popup.ts'
import './styles.css'

const root = document.getElementById('root')
if (!root) throw new Error('index.html has no #root element')

const render = () =>
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  )

// A connect pop-up that has come back from the platform hands the result to the window that opened
// it and closes. Should the browser keep it open after all, it shows the result itself.
if (relayConnectResultToOpener(window)) {
  root.innerHTML = '<main class="page" id="main"><p class="muted">Done. You can close this window.</p></main>'
  setTimeout(() => {
    if (!window.closed) {
      root.innerHTML = ''
      render()
    }
  }, 1500)
} else render()
