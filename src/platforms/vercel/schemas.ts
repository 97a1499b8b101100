import { z } from 'zod'

export const DeploymentState = z.enum(['QUEUED', 'BUILDING', 'INITIALIZING', 'READY', 'ERROR', 'CANCELED'])
export const DeploymentId = z
  .string()
  .trim()
  .regex(/^dpl_[A-Za-z0-9]{6,64}$/, 'must be a deployment id such as dpl_3Fq8…')
/** A project is named by its id (prj_…) or its name, as Vercel's own routes accept either. */
export const ProjectRef = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9._-]+$/, 'must be a project id (prj_…) or name: letters, digits, ".", "_" and "-"')

export const Deployment = z.looseObject({
  id: z.string(),
  url: z.string(),
  name: z.string(),
  projectId: z.string().optional(),
  readyState: z.string().optional(),
  state: z.string().optional(),
  target: z.string().nullable().optional(),
  creator: z.looseObject({ uid: z.string() }).optional(),
  meta: z.record(z.string(), z.unknown()).optional(),
  createdAt: z.number().optional(),
  created: z.number().optional(),
})
