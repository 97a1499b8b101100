import fs from 'node:fs'
import { expect, it } from 'vitest'
import { API_TYPES, renderApiTypes } from './api-types.ts'

it('the web app types match the OpenAPI document the server serves', async () => {
  const committed = fs.readFileSync(API_TYPES, 'utf8')
  const fresh = await renderApiTypes()
  if (committed !== fresh)
    expect.fail('src/web/api-types.generated.ts is stale: run `npm run types:api` and commit the result')
  // The drift issue 25 found: a subscription's integration is gone when its name is null.
  const subscription = fresh.match(/\n {4}Subscription: \{\n[\s\S]*?\n {4}\}\n/)?.[0]
  expect(subscription).toContain('integration_name: string | null')
})
