/** Why a run or a step failed, as runs store and show it. */
export interface RunError {
  code: string
  message: string
  step?: string
  /** The budget a model run exhausted. */
  budget?: string
}
