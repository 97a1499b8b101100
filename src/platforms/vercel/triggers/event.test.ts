import { describe, expect, it } from 'vitest'
import { deploymentFailed, deploymentStarted, deploymentSucceeded } from './deployments.ts'
import { deploymentEvent, SAMPLE, sampleEvent } from './event.ts'

const candidate = (raw: ReturnType<typeof sampleEvent>) => ({ dedupeKey: raw.id, type: raw.type, raw })

describe('deploymentEvent', () => {
  it('takes the url with or without a scheme, keeps only string meta, and says null for a personal account', () => {
    const raw = sampleEvent('deployment.succeeded', 'evt_1')
    raw.payload = {
      ...raw.payload,
      team: null,
      deployment: {
        ...(raw.payload.deployment as object),
        url: `https://${SAMPLE.deployment.host}/`,
        meta: { githubCommitRef: 'main', pr: 7 },
      },
    }
    expect(deploymentEvent(raw)).toMatchObject({
      deployment: {
        url: `https://${SAMPLE.deployment.host}`,
        host: SAMPLE.deployment.host,
        state: 'READY',
        meta: { githubCommitRef: 'main' },
      },
      team: null,
      event: { id: 'evt_1', date: new Date(SAMPLE.createdAt).toISOString() },
    })
  })

  it('is null without a deployment id; each trigger fires on its own type only', () => {
    expect(
      deploymentEvent({ id: 'evt_2', type: 'deployment.created', createdAt: 0, payload: { deployment: {} } }),
    ).toBeNull()
    const created = candidate(sampleEvent('deployment.created', 'evt_3'))
    expect(deploymentStarted.match!(created, {})).not.toBeNull()
    expect(deploymentSucceeded.match!(created, {})).toBeNull()
    expect(deploymentFailed.match!(created, {})).toBeNull()
    expect(deploymentFailed.match!(candidate(sampleEvent('deployment.error', 'evt_4')), {})).toMatchObject({
      deployment: { state: 'ERROR' },
    })
    expect(
      deploymentStarted.match!({ ...created, raw: { id: 'evt_5', type: 'deployment.created' } }, {}),
    ).toBeNull()
  })

  it('a project filter passes only the chosen projects', () => {
    const inOther = candidate(sampleEvent('deployment.created', 'evt_6', 'prj_Other'))
    expect(deploymentStarted.match!(inOther, { project_ids: [SAMPLE.project.id] })).toBeNull()
    expect(deploymentStarted.match!(inOther, { project_ids: ['prj_Other'] })).not.toBeNull()
    expect(deploymentStarted.match!(inOther, { project_ids: [] })).not.toBeNull()
  })
})
