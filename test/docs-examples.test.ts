// Issue 24 §4: every shell example in README.md and docs/ runs as written against a fresh stack, or
// says, in a comment just above it, why it cannot (`<!-- example not run: … -->`). The one thing
// replaced is what the docs themselves say to replace: the default addresses (127.0.0.1:3000 for the
// service, 127.0.0.1:4010 and the single-sandbox ports 4020/4030 for the sandboxes) become this
// test's. The state is the Quick start's: the sandbox's Zendesk and Trello accounts connected, and
// `data/admin-api-key` holding the key. `npx switchyard` is this checkout's CLI, and curl fails on an
// HTTP error answer, so an example that only prints an error fails here.
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectZendesk } from './helpers/connect.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectTrelloWithToken } from './helpers/trello.ts'

const ROOT = path.resolve(import.meta.dirname, '..')
const NOT_RUN = /^<!--\s*example not run:\s*(.*?)\s*-->$/
const FENCE = /^```(sh|bash|shell)\s*$/
const run = promisify(execFile)

interface Example {
  file: string
  line: number
  code: string
  notRun?: string
}

function docsFiles(): string[] {
  const docs = (fs.readdirSync(path.join(ROOT, 'docs'), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join('docs', f))
    .sort()
  return ['README.md', ...docs]
}

/** The shell blocks of a markdown file, each with the reason it is not run when one is given above it. */
function examplesIn(file: string): Example[] {
  const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n')
  const found: Example[] = []
  for (let i = 0; i < lines.length; i++) {
    if (!FENCE.test(lines[i]!)) continue
    const end = lines.findIndex((l, j) => j > i && l.startsWith('```'))
    const above = lines.slice(Math.max(0, i - 2), i).map((l) => l.trim())
    const marker = above.map((l) => NOT_RUN.exec(l)).find(Boolean)
    found.push({ file, line: i + 1, code: lines.slice(i + 1, end).join('\n'), notRun: marker?.[1] })
    i = end
  }
  return found
}

/** The agent definition the README's `agents create --file file-requests.json` refers to. */
function fileRequestsJson(): string {
  const agents = fs.readFileSync(path.join(ROOT, 'docs/agents.md'), 'utf8')
  const section = agents.slice(agents.indexOf('## Defining an agent'))
  const match = /```json\n([\s\S]*?)\n```/.exec(section)
  if (!match) throw new Error('docs/agents.md has no JSON example under "Defining an agent"')
  return match[1]!
}

const examples = docsFiles().flatMap(examplesIn)
// Sandbox resets come last: they would undo the connections the other pages' examples use.
const order = (file: string) => (file === 'README.md' ? 0 : file === 'docs/sandbox.md' ? 2 : 1)
const pages = [...new Set(examples.filter((e) => !e.notRun).map((e) => e.file))].sort(
  (a, b) => order(a) - order(b) || a.localeCompare(b),
)

let stack: TestStack
let workDir: string
let env: NodeJS.ProcessEnv

beforeAll(async () => {
  stack = await startTestStack()
  const zendesk = await connectZendesk(stack, { email: 'admin@acme.test' })
  if (!zendesk.integrationId) throw new Error('the Zendesk sandbox account did not connect')
  await connectTrelloWithToken(stack)
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-docs-'))
  fs.mkdirSync(path.join(workDir, 'data'))
  fs.writeFileSync(path.join(workDir, 'data', 'admin-api-key'), stack.apiKey, { mode: 0o600 })
  fs.writeFileSync(path.join(workDir, 'file-requests.json'), fileRequestsJson())
  // bin/ shadows npx (this checkout's CLI, never a download) and curl (an HTTP error fails the example).
  const bin = path.join(workDir, 'bin')
  fs.mkdirSync(bin)
  const realCurl = (await run('sh', ['-c', 'command -v curl'])).stdout.trim()
  fs.writeFileSync(
    path.join(bin, 'npx'),
    `#!/bin/sh\nif [ "$1" = switchyard ]; then shift; exec node ${JSON.stringify(path.join(ROOT, 'bin/switchyard.js'))} "$@"; fi\necho "npx $1 is not run by the docs examples test" >&2\nexit 127\n`,
    { mode: 0o755 },
  )
  fs.writeFileSync(path.join(bin, 'curl'), `#!/bin/sh\nexec ${realCurl} --fail-with-body "$@"\n`, {
    mode: 0o755,
  })
  env = {
    ...process.env,
    PATH: [bin, path.dirname(process.execPath), process.env.PATH].join(path.delimiter),
    SWITCHYARD_URL: stack.url,
    SWITCHYARD_API_KEY: stack.apiKey,
    // The platform pages' curl examples use $KEY for "your API key".
    KEY: stack.apiKey,
  }
}, 120_000)

afterAll(async () => {
  await stack?.close()
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true })
})

describe('the docs’ shell examples run as written', () => {
  it('every shell example is run below or says why not', () => {
    expect(examples.length).toBeGreaterThan(10)
    for (const e of examples.filter((x) => x.notRun !== undefined))
      expect(e.notRun, `${e.file}:${e.line} says it is not run, but not why`).toMatch(/\w{3,}/)
    expect(pages).toContain('README.md')
  })

  it.each(pages)(
    '%s',
    async (file) => {
      const sandboxHost = new URL(stack.sandboxUrl).host
      const script = examples
        .filter((e) => e.file === file && !e.notRun)
        .map((e) => `# ${e.file}:${e.line}\n${e.code}`)
        .join('\n')
        .replaceAll('http://127.0.0.1:3000', stack.url)
        .replace(/127\.0\.0\.1:40[123]0/g, sandboxHost)
      const shell = `set -eo pipefail\ntrap 'echo "failed: $BASH_COMMAND" >&2' ERR\n${script}\n`
      try {
        await run('bash', ['-c', shell], { cwd: workDir, env, timeout: 150_000, maxBuffer: 16 << 20 })
      } catch (err) {
        const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string }
        throw new Error(
          `an example in ${file} failed:\n${stderr.slice(-2000)}\n--- stdout ---\n${stdout.slice(-1500)}`,
        )
      }
    },
    180_000,
  )
})
