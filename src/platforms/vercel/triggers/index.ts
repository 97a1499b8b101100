import type { AnyTrigger } from '../../../core/triggers/define.ts'
import { deploymentFailed, deploymentStarted, deploymentSucceeded } from './deployments.ts'

/** Vercel's three triggers, in the order the catalogue shows them (docs/triggers/vercel.md). */
export const vercelTriggers: AnyTrigger[] = [deploymentStarted, deploymentSucceeded, deploymentFailed]
