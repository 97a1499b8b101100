import { decodeOrKeep } from './http.ts'

/** What the router needs of a sandbox route: its method and path template. */
export interface RouteShape {
  method: string
  /** `{name}` matches any one path segment; `:name` matches an integer segment. */
  path: string
}

export interface RouteMatch<R> {
  route: R
  /** Path parameters, percent-decoded (left as sent when the encoding is malformed). */
  params: Record<string, string>
}

interface Compiled<R> {
  route: R
  pattern: RegExp
  names: string[]
}

/** Matches a request to the first route whose method and path template fit. Shared by every sandbox. */
export class PathRouter<R extends RouteShape> {
  private readonly compiled: Compiled<R>[]

  /** `trailingSlash`: whether `/things/` also matches `/things` (Rails-style APIs such as Zendesk's say no). */
  constructor(routes: R[], options: { trailingSlash: boolean }) {
    const end = options.trailingSlash ? '/?$' : '$'
    this.compiled = routes.map((route) => {
      const names: string[] = []
      const source = route.path.replace(
        /:(\w+)|\{(\w+)\}/g,
        (_, integer: string | undefined, any: string | undefined) => {
          names.push((integer ?? any) as string)
          return integer ? '(\\d+)' : '([^/]+)'
        },
      )
      return { route, pattern: new RegExp(`^${source}${end}`), names }
    })
  }

  /** HEAD is served by the GET route. */
  match(method: string, path: string): RouteMatch<R> | undefined {
    const wanted = method === 'HEAD' ? 'GET' : method
    for (const { route, pattern, names } of this.compiled) {
      if (route.method !== wanted) continue
      const found = pattern.exec(path)
      if (!found) continue
      const params: Record<string, string> = {}
      names.forEach((name, i) => (params[name] = decodeOrKeep(found[i + 1] as string)))
      return { route, params }
    }
    return undefined
  }

  /** The methods some route serves at this path: for a 405's Allow list when `match` found none. */
  allowedMethods(path: string): string[] {
    return [
      ...new Set(this.compiled.filter(({ pattern }) => pattern.test(path)).map(({ route }) => route.method)),
    ]
  }
}
