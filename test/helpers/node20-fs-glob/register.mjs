// Preloaded (`node --import`) into the MCP conformance CLI only (test/mcp-outside-clients.test.ts).
// The CLI imports `globSync` from `fs`, which Node 22 added; this machine and CI run Node 20, where
// that import fails before anything runs. Its server scenarios never call it (only its tier-check
// command does), so the CLI gets Node 20's `fs` plus a `globSync` that refuses to work.
import { register } from 'node:module'

register('./hooks.mjs', import.meta.url)
