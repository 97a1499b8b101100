/** One line of `switchyard doctor`. */
export interface DoctorCheck {
  name: string
  ok: boolean
  /** What is set up, or what is missing and how to set it. Never a secret's value. */
  detail: string
}
