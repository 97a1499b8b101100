import { fileURLToPath } from 'node:url'
import { defineConfig, type ProxyOptions, type UserConfig } from 'vite'
import react from '@vitejs/plugin-react'

// The web app lives in src/web and is built into web-dist/ at the repo root, which the server
// serves statically (with an index.html fallback for client-side routes).
const repoRoot = fileURLToPath(new URL('.', import.meta.url))

// `vite` (dev server) forwards API and OAuth routes to a running Switchyard (SWITCHYARD_URL). The
// service checks that session requests carry its own Origin, so the proxy rewrites Origin.
const apiTarget = process.env.SWITCHYARD_URL ?? 'http://127.0.0.1:3000'
const proxied: ProxyOptions = {
  target: apiTarget,
  changeOrigin: true,
  configure: (proxy) => {
    proxy.on('proxyReq', (req) => {
      if (req.getHeader('origin')) req.setHeader('origin', new URL(apiTarget).origin)
    })
  },
}

const config: UserConfig = {
  root: `${repoRoot}src/web`,
  base: '/',
  publicDir: false,
  plugins: [react()],
  build: {
    outDir: `${repoRoot}web-dist`,
    emptyOutDir: true,
    sourcemap: true,
  },
  server: {
    proxy: {
      '/v1': proxied,
      '/oauth': proxied,
      '/openapi.json': proxied,
    },
  },
}

export default defineConfig(({ command, mode }) => {
  // Test runners set NODE_ENV=test, which would bundle React's development build (twice the size,
  // double-invoked effects under StrictMode). A production-mode build is always a production bundle.
  if (command === 'build' && mode === 'production') process.env.NODE_ENV = 'production'
  return config
})
