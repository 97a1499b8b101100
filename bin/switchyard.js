#!/usr/bin/env node
// Thin launcher: runs the TypeScript CLI through tsx so `npx switchyard` works from a checkout with no build step.
import { register } from 'tsx/esm/api'
register()
await import('../src/cli.ts')
