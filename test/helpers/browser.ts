// The browser tests' set-up, once: Debian's Chromium driven by playwright-core (no browser
// download), a build of the web app, and a whole test stack serving it.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, expect } from 'vitest'
import { startTestStack, type TestStack } from './test-stack.ts'

export const CHROMIUM_PATH = '/usr/bin/chromium'
const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url))
const WEB_SRC = join(REPO_ROOT, 'src/web')
const WEB_DIST = join(REPO_ROOT, 'web-dist')
export const BUILD_TIMEOUT_MS = 180_000
/** For a suite's beforeAll: a build of the web app, a stack and a browser. */
export const SETUP_TIMEOUT_MS = BUILD_TIMEOUT_MS + 60_000

export const hasChromium = existsSync(CHROMIUM_PATH)

/** Says once per file why its browser tests are skipped on a machine without Chromium. */
export function warnIfNoChromium(what: string): void {
  if (!hasChromium)
    console.warn(`Skipping ${what}: ${CHROMIUM_PATH} does not exist (install Debian's chromium package).`)
}

export interface BrowserStack {
  stack: TestStack
  browser: Browser
  /** The first context, whose first page is `page`. */
  context: BrowserContext
  page: Page
  /** Uncaught errors of every page and pop-up of every context this stack opened. */
  pageErrors: string[]
  /** Content Security Policy violations reported by any page or pop-up, as the browser saw them. */
  cspViolations: string[]
  /** Another context (another person's session) with the same watches. */
  newContext(): Promise<BrowserContext>
  /** Opens a page of the app, signing in with the API key (the stack's first user's) if the session is missing. */
  openSignedIn(path: string, apiKey?: string, on?: Page): Promise<void>
  close(): Promise<void>
}

/**
 * A stack serving the web app and a browser on it. `ownBuild` builds the app into a folder of the
 * suite's own, so suites running at once never race over web-dist/; otherwise web-dist/ is built
 * when missing or older than the app's sources.
 */
export async function startBrowserStack(
  options: {
    ownBuild?: boolean
    stepTimeoutMs?: number
    viewport?: { width: number; height: number }
  } = {},
): Promise<BrowserStack> {
  const webDist = options.ownBuild ? mkdtempSync(join(tmpdir(), 'switchyard-web-')) : undefined
  if (webDist) buildWeb(['--outDir', webDist, '--emptyOutDir'])
  else buildWebIfStale()
  const stack = await startTestStack({ webDist })
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS })
  const pageErrors: string[] = []
  const cspViolations: string[] = []
  const newContext = async () => {
    const context = await browser.newContext({ baseURL: stack.url, viewport: options.viewport })
    context.setDefaultTimeout(options.stepTimeoutMs ?? 20_000)
    // Every page reports what its policy blocked, pop-ups included (docs/security.md).
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) =>
        console.error(
          `CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline'} at ${e.sourceFile}:${e.lineNumber}`,
        ),
      )
    })
    context.on('console', (message) => {
      if (/CSP violation|Content Security Policy/i.test(message.text()))
        cspViolations.push(`${message.page()?.url()}: ${message.text()}`)
    })
    context.on('page', (p) => p.on('pageerror', (err) => pageErrors.push(`${p.url()}: ${err.message}`)))
    return context
  }
  const context = await newContext()
  const page = await context.newPage()
  // Compared by origin: the sandbox also listens on 127.0.0.1, and one port can prefix another.
  const onSwitchyard = (href: string) => new URL(href).origin === new URL(stack.url).origin
  return {
    stack,
    browser,
    context,
    page,
    pageErrors,
    cspViolations,
    newContext,
    async openSignedIn(path, apiKey = stack.apiKey, on = page) {
      await on.goto(path)
      await on.locator('#email, #api-key, .topbar').first().waitFor()
      // The sign-in page opens on email and password; API keys are one click away.
      if (await on.locator('#email').isVisible())
        await on.getByRole('button', { name: 'Sign in with an API key instead' }).click()
      if (await on.locator('#api-key').isVisible()) {
        await on.getByLabel('API key').fill(apiKey)
        await on.getByRole('button', { name: 'Sign in', exact: true }).click()
        await on.waitForURL((u) => onSwitchyard(u.href) && u.pathname !== '/login')
      }
      await on.locator('.topbar').waitFor()
    },
    async close() {
      await browser.close()
      await stack.close()
      if (webDist) rmSync(webDist, { recursive: true, force: true })
    },
  }
}

function buildWeb(args: string[]): void {
  execFileSync(join(REPO_ROOT, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn', ...args], {
    cwd: REPO_ROOT,
    stdio: 'pipe',
    timeout: BUILD_TIMEOUT_MS,
  })
}

function newestSourceMtimeMs(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceMtimeMs(path))
    else if (!entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs)
  }
  return newest
}

/** Builds web-dist/ when it is missing or older than the app's sources. */
function buildWebIfStale(): void {
  const index = join(WEB_DIST, 'index.html')
  const sources = Math.max(newestSourceMtimeMs(WEB_SRC), statSync(join(REPO_ROOT, 'vite.config.ts')).mtimeMs)
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return
  buildWeb([])
}

/** Where the browser tests put their screenshots, for a person to look at. */
export const SHOTS_DIR = '/work/tmp/shots'

export interface BrowserSuite extends BrowserStack {
  /** The width the suite's page opens at, and goes back to after `shotsAt`. */
  readonly width: number
  /** A full-page screenshot of `on` (the suite's page by default), as SHOTS_DIR/<prefix>-<name>.png. */
  shot(name: string, on?: Page): Promise<void>
  /** Screenshots of `on` (the suite's page by default) at each width as <prefix>-<name>-<width>.png, then back to the suite's width. */
  shotsAt(name: string, widths?: number[], on?: Page): Promise<void>
  /** Fails when anything on `on` is wider than its window (long JSON and ids must scroll or wrap inside their boxes). */
  expectNoSideways(on?: Page, what?: string): Promise<void>
  /** Chooses an option of a SearchSelect (tool steps, triggers) by typing and clicking it. */
  searchSelect(selector: string, query: string, option: string | RegExp, on?: Page): Promise<void>
}

/**
 * A describe block's browser stack, started in its beforeAll and closed in its afterAll. Its members
 * are there once the suite's beforeAll has run (in tests and their hooks); `ready` runs at the end of
 * that beforeAll, for what the suite makes once (an integration, an agent) or keeps in its own names.
 */
export function browserSuite(
  options: {
    /** The start of each screenshot's name. */
    shots?: string
    /** The page's width; 1,280 px unless told. */
    width?: number
    height?: number
    stepTimeoutMs?: number
    /** False: share web-dist/ (rebuilt when stale) rather than build into a folder of the suite's own. */
    ownBuild?: boolean
    ready?: (b: BrowserStack) => void | Promise<void>
  } = {},
): BrowserSuite {
  const width = options.width ?? 1280
  const height = options.height ?? 900
  let b: BrowserStack | undefined
  const started = (): BrowserStack => {
    if (!b) throw new Error('the browser suite is used before its beforeAll has run')
    return b
  }
  beforeAll(async () => {
    mkdirSync(SHOTS_DIR, { recursive: true })
    b = await startBrowserStack({
      ownBuild: options.ownBuild ?? true,
      stepTimeoutMs: options.stepTimeoutMs,
      viewport: { width, height },
    })
    await options.ready?.(b)
  }, SETUP_TIMEOUT_MS)
  afterAll(async () => {
    await b?.close()
  })
  const shot = async (name: string, on?: Page) => {
    await (on ?? started().page).screenshot({
      path: join(SHOTS_DIR, `${options.shots ?? 'browser'}-${name}.png`),
      fullPage: true,
    })
  }
  return {
    width,
    get stack() {
      return started().stack
    },
    get browser() {
      return started().browser
    },
    get context() {
      return started().context
    },
    get page() {
      return started().page
    },
    get pageErrors() {
      return started().pageErrors
    },
    get cspViolations() {
      return started().cspViolations
    },
    newContext: () => started().newContext(),
    openSignedIn: (path, apiKey, on) => started().openSignedIn(path, apiKey, on),
    close: () => started().close(),
    shot,
    async shotsAt(name, widths = [1280, 390], on) {
      const page = on ?? started().page
      for (const w of widths) {
        await page.setViewportSize({ width: w, height })
        await shot(`${name}-${w}`, page)
      }
      await page.setViewportSize({ width, height })
    },
    async expectNoSideways(on, what = 'the page') {
      const { scroll, inner } = await (on ?? started().page).evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        inner: window.innerWidth,
      }))
      expect(scroll, `${what} is ${scroll}px wide in a ${inner}px window`).toBeLessThanOrEqual(inner)
    },
    async searchSelect(selector, query, option, on) {
      const page = on ?? started().page
      const box = page.locator(selector)
      await box.click()
      await box.fill(query)
      const listbox = page.locator(`[id="${await box.getAttribute('aria-controls')}"]`)
      await listbox.getByRole('option', { name: option }).first().click()
    },
  }
}

/**
 * Clicks the editor's "Create agent" and waits for the saved agent's own page, returning its id. The
 * editor's address, /agents/new, already has the saved page's shape, so waiting for the address alone
 * returned at once and read "new" as the id whenever saving took a moment.
 */
export async function createAgentFromEditor(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'Create agent' }).click()
  await page.waitForURL((u) => /^\/agents\/[^/]+$/.test(u.pathname) && u.pathname !== '/agents/new')
  await page.getByText('Saved as version 1.').waitFor()
  return decodeURIComponent(new URL(page.url()).pathname.split('/')[2]!)
}

/**
 * Opens the agent editor signed in and starts a model agent named `name` with one number input,
 * `ticket_id`, as a newcomer's does: the sandbox model is then chosen, and its note shown.
 */
export async function newModelAgentWithTicketInput(
  s: Pick<BrowserStack, 'page' | 'openSignedIn'>,
  name: string,
): Promise<void> {
  await s.openSignedIn('/agents/new')
  await s.page.locator('#agent-name').fill(name)
  await s.page.getByRole('button', { name: 'Add input variable' }).click()
  await s.page.locator('#agent-inputs-0-name').fill('ticket_id')
  await s.page.locator('#agent-inputs-0-type').selectOption('number')
  await s.page.getByRole('radio', { name: /^Model/ }).check()
}
