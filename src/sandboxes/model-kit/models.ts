/**
 * The sandbox's model ids: they say "sandbox" so nobody mistakes the default model for one that
 * understands (docs/sandbox.md). Both behave the same; two exist so model pickers and price
 * tables have a choice to show. Any other id is refused as the provider refuses an unknown model.
 */
export const SANDBOX_MODELS = ['sandbox-model', 'sandbox-model-mini'] as const

/** When the sandbox models were "created" (a fixed instant, 2026-01-01T00:00:00Z). */
export const SANDBOX_MODELS_CREATED = 1767225600

export const isSandboxModel = (id: string): boolean => (SANDBOX_MODELS as readonly string[]).includes(id)

/** The header that picks a scenario by id (scenarios.ts). */
export const SCENARIO_HEADER = 'x-sandbox-scenario'
