import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { freePort, startChild } from './processes.ts'
import { TRIGGER_PLATFORMS, triggerBench } from './triggers.ts'

// The trigger bench alone, on the embedded store (`node --import tsx bench/triggers-only.ts`), for
// working on the engine: every platform, or those named in BENCH_TRIGGER_PLATFORMS (such as
// `zendesk,vercel`). `npm run bench` runs it on both stores and writes docs/benchmarks.md.
const wanted = process.env.BENCH_TRIGGER_PLATFORMS?.split(',').map((p) => p.trim()).filter(Boolean)
const platforms = wanted ? TRIGGER_PLATFORMS.filter((f) => wanted.includes(f.platform)) : TRIGGER_PLATFORMS
if (!platforms.length) throw new Error(`BENCH_TRIGGER_PLATFORMS names none of ${TRIGGER_PLATFORMS.map((f) => f.platform).join(', ')}`)
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-triggers-'))
const sandbox = await startChild(['sandbox', '--port', String(await freePort())], {}, /listening on (\S+)/)
const service = await startChild(['start'], { PORT: String(await freePort()), SWITCHYARD_DATA_DIR: dataDir, SWITCHYARD_SANDBOX_URL: sandbox.match[1], LOG_LEVEL: 'warn' }, /Switchyard is running at (\S+)/)
try {
  const apiKey = fs.readFileSync(path.join(dataDir, 'admin-api-key'), 'utf8').trim()
  console.log(await triggerBench({ url: service.match[1], apiKey }, sandbox.match[1], 'pglite', platforms))
} finally {
  await service.stop()
  await sandbox.stop()
  fs.rmSync(dataDir, { recursive: true, force: true })
}
