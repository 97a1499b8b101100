import { SandboxInstance } from '../kit/instance.ts'
import { describedErrors } from '../kit/control.ts'
import { CallLog, type LoggedCall } from './call-log.ts'
import { modelFaultRules } from './model-faults.ts'
import { Scenarios } from './scenarios.ts'

/** What a model sandbox keeps: its scenarios and its calls log. */
export interface ModelStore {
  scenarios: Scenarios
  calls: CallLog
}

/**
 * One model provider's sandbox (OpenAI's or Anthropic's): the kit's clock, faults and request
 * log, plus scenarios and the calls log. `reset()` forgets them all.
 */
export class ModelSandbox extends SandboxInstance<ModelStore> {
  constructor(readonly provider: 'openai' | 'anthropic') {
    super({
      emptyStore: () => ({ scenarios: new Scenarios(), calls: new CallLog() }),
      seed: () => {},
      control: { errors: describedErrors, faultRules: modelFaultRules },
    })
  }

  logCall(entry: Omit<LoggedCall, 'id' | 'at'>): void {
    this.store.calls.add({ at: new Date(this.now()).toISOString(), ...entry })
  }
}
