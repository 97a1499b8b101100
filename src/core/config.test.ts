import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from './config.ts'

describe('a setting that cannot be used as written stops the start, naming the variable', () => {
  it.each([
    ['PORT', 'eighty'],
    ['PORT', '3000.5'],
    ['PORT', '-1'],
    ['PORT', '1e3'],
    ['SWITCHYARD_SANDBOX_PORT', 'x'],
    ['SWITCHYARD_REQUEST_TIMEOUT_MS', '30s'],
    ['SWITCHYARD_HEADERS_TIMEOUT_MS', '0'],
    ['SWITCHYARD_POLL_INTERVAL_SECONDS', '1m'],
    ['SWITCHYARD_RUN_CONCURRENCY', '0'],
    ['SWITCHYARD_RUN_LEASE_MS', 'NaN'],
    ['SWITCHYARD_AGENT_NETWORKS', 'publc'],
    ['SWITCHYARD_AGENT_NETWORKS', 'PUBLIC'],
    ['SWITCHYARD_AGENT_NETWORKS', 'private'],
  ])('%s=%s', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError)
    expect(() => loadConfig({ [name]: value })).toThrow(
      new RegExp(`${name} must be .*, not "${value.replace(/[.*]/g, '\\$&')}"`),
    )
  })

  it('names every problem at once, so one start finds them all', () => {
    expect(() => loadConfig({ PORT: 'x', SWITCHYARD_AGENT_NETWORKS: 'none' })).toThrow(
      /PORT must be .*; SWITCHYARD_AGENT_NETWORKS must be public or any/,
    )
  })

  it.each([
    [{}, { port: 3000, agentNetworks: 'any', runConcurrency: 32 }],
    [
      { PORT: '0', SWITCHYARD_RUN_CONCURRENCY: ' 4 ' },
      { port: 0, runConcurrency: 4 },
    ],
    [
      { PORT: '', SWITCHYARD_AGENT_NETWORKS: '' },
      { port: 3000, agentNetworks: 'any' },
    ],
    [{ NODE_ENV: 'production' }, { agentNetworks: 'public' }],
    [{ NODE_ENV: 'production', SWITCHYARD_AGENT_NETWORKS: 'any' }, { agentNetworks: 'any' }],
  ])('%j is accepted as %j', (env, expected) => {
    expect(loadConfig(env)).toMatchObject(expected)
  })
})

describe('SWITCHYARD_TRUST_PROXY names proxies by address only', () => {
  it.each([
    ['true'],
    ['*'],
    ['2'],
    ['any'],
    ['127.1'],
    ['0x7f.0.0.1'],
    ['10.0.0.0/33'],
    ['10.0.0.0/8/8'],
    ['fe80::/129'],
    ['10.0.0.1, proxy.example.com'],
    ['10.0.0.0/-1'],
  ])('refuses %j, naming the setting', (value) => {
    expect(() => loadConfig({ SWITCHYARD_TRUST_PROXY: value })).toThrow(
      /SWITCHYARD_TRUST_PROXY has ".*", which is not an IP address/,
    )
  })

  it.each([
    ['', []],
    ['10.0.0.5', ['10.0.0.5']],
    [' 10.0.0.0/8 , ::1, fd00::/8, loopback ', ['10.0.0.0/8', '::1', 'fd00::/8', 'loopback']],
  ])('%j is the list %j', (value, proxies) => {
    expect(loadConfig({ SWITCHYARD_TRUST_PROXY: value }).trustedProxies).toEqual(proxies)
  })
})
