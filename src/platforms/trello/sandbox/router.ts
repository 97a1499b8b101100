import type { ApiContext } from './context.ts'
import type { SandboxResponse } from './http.ts'
import type { Scope } from './model.ts'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE'

export interface ApiRoute {
  method: HttpMethod
  /** Under `/1`; `{name}` matches one path segment. */
  path: string
  /** The token scope the route needs (§2.1: read, write, account). */
  scope: Scope
  handle: (ctx: ApiContext) => SandboxResponse | Promise<SandboxResponse>
}

interface CompiledRoute {
  route: ApiRoute
  pattern: RegExp
  names: string[]
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

export class ApiRouter {
  private readonly compiled: CompiledRoute[]

  constructor(routes: ApiRoute[]) {
    this.compiled = routes.map((route) => {
      const names: string[] = []
      const source = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
        names.push(name)
        return '([^/]+)'
      })
      return { route, pattern: new RegExp(`^${source}/?$`), names }
    })
  }

  /** HEAD is served by the GET route. */
  match(method: string, path: string): { route: ApiRoute; params: Record<string, string> } | undefined {
    const wanted = method === 'HEAD' ? 'GET' : method
    for (const { route, pattern, names } of this.compiled) {
      if (route.method !== wanted) continue
      const found = pattern.exec(path)
      if (!found) continue
      const params: Record<string, string> = {}
      names.forEach((name, i) => (params[name] = decode(found[i + 1] as string)))
      return { route, params }
    }
    return undefined
  }
}
