import type { AnyTool } from '../../../core/tools/define.ts'
import { cancelDeployment } from './cancel-deployment.ts'
import { createDeployment } from './create-deployment.ts'
import { getDeployment } from './get-deployment.ts'
import { listDeployments } from './list-deployments.ts'

export const vercelTools: AnyTool[] = [createDeployment, listDeployments, getDeployment, cancelDeployment]
