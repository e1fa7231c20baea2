// Route paths and prefixes: `{name}` parameters, the `/*` wildcard, and segment-wise prefix matching on a canonical
// path.
import { defineError } from './errors.js'

export const ERR_APP_BAD_PATH = defineError(
  'FW_ERR_APP_BAD_PATH',
  (path: string, why: string) => `invalid route path ${JSON.stringify(path)}: ${why}`,
)

/** One segment of a route pattern. */
export type Segment = { kind: 'static'; value: string } | { kind: 'param'; name: string } | { kind: 'wildcard' }

const PARAM = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/

/** Parses a route path into segments, checking the spec's rules (leading `/`, `{name}`, `/*` last). */
export function parse_route(path: string): Segment[] {
  if (!path.startsWith('/')) throw ERR_APP_BAD_PATH(path, 'it must start with /')
  const parts = path.split('/').slice(1)
  const segs: Segment[] = []
  parts.forEach((part, i) => {
    if (part === '' && i === parts.length - 1) return
    if (part === '*') {
      if (i !== parts.length - 1) throw ERR_APP_BAD_PATH(path, 'the wildcard /* must be last')
      segs.push({ kind: 'wildcard' })
      return
    }
    const m = PARAM.exec(part)
    if (m) {
      // A second `{id}` silently took the place of the first in `req.param('id')`.
      if (segs.some((s) => s.kind === 'param' && s.name === m[1]))
        throw ERR_APP_BAD_PATH(path, `the parameter {${m[1]}} appears twice`)
      segs.push({ kind: 'param', name: m[1]! })
    } else if (/[{}*:]/.test(part)) throw ERR_APP_BAD_PATH(path, `bad segment ${JSON.stringify(part)}`)
    else if (part === '') throw ERR_APP_BAD_PATH(path, 'empty segment')
    else segs.push({ kind: 'static', value: part })
  })
  return segs
}

/**
 * The shape of a route path, which two routes of one method cannot share: its router form with parameter names left out
 * (`/users/{id}` and `/users/{name}` both match every `/users/x`).
 */
export function route_shape(segs: readonly Segment[]): string {
  if (segs.length === 0) return '/'
  return segs.map((s) => (s.kind === 'static' ? '/' + s.value : s.kind === 'param' ? '/:' : '/*')).join('')
}

/** The router's form of a route path: `{id}` becomes `:id`. */
export function router_path(segs: readonly Segment[]): string {
  if (segs.length === 0) return '/'
  return segs.map((s) => (s.kind === 'static' ? '/' + s.value : s.kind === 'param' ? '/:' + s.name : '/*')).join('')
}

/**
 * Joins a group prefix and a path: `/api` + `/health` is `/api/health`; `/api` + `/` is `/api`. A prefix's trailing
 * slash is dropped (`/api/` + `/health` is `/api/health`): the prefix passes `parse_route`, so a doubled slash here would
 * refuse every route of the group with a path the user never wrote.
 */
export function join_path(prefix: string, path: string): string {
  if (prefix === '' || prefix === '/') return path
  const base = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix
  return path === '/' ? base : base + path
}

/** A prefix as lowercase segments; `/` (or '') is the empty list, which matches everything. */
export function prefix_segments(prefix: string): string[] {
  if (prefix !== '' && !prefix.startsWith('/')) throw ERR_APP_BAD_PATH(prefix, 'a prefix must start with /')
  return prefix
    .split('/')
    .filter((s) => s !== '')
    .map((s) => s.toLowerCase())
}

/** How a prefix relates to every request a route can match. */
export type PrefixMatch = 'always' | 'never' | 'maybe'

/**
 * Decides once, at startup, whether a prefix covers a route. Comparison is case-insensitive so that case tricks never
 * skip middleware; parameters and the wildcard leave it to a per-request check.
 */
export function classify(route: readonly Segment[], prefix: readonly string[]): PrefixMatch {
  for (let i = 0; i < prefix.length; i++) {
    const s = route[i]
    if (s === undefined) return 'never'
    // A `{name}` of the prefix covers any one segment: a static or parameter segment of the route, always.
    if (PARAM.test(prefix[i]!) && s.kind !== 'wildcard') continue
    if (s.kind !== 'static') return 'maybe'
    if (s.value.toLowerCase() !== prefix[i]) return 'never'
  }
  return 'always'
}

/**
 * The canonical segments of a request path: query dropped, percent-decoded once, `.` and empty segments removed, `..`
 * resolved, backslashes treated as slashes, lowercased. Prefix checks use this form.
 */
export function canonical_segments(url: string): string[] {
  const q = url.indexOf('?')
  let path = q === -1 ? url : url.slice(0, q)
  try {
    path = decodeURIComponent(path)
  } catch {
    // Malformed escapes stay as sent; the router rejects them anyway.
  }
  const out: string[] = []
  for (const seg of path.split(/[\\/]/)) {
    if (seg === '' || seg === '.') continue
    if (seg === '..') out.pop()
    else out.push(seg.toLowerCase())
  }
  return out
}

/**
 * Whether canonical request segments fall under a prefix (whole segments: `/api` covers `/api/x`, not `/apix`); a
 * `{name}` segment of the prefix matches any one.
 */
export function under_prefix(segs: readonly string[], prefix: readonly string[]): boolean {
  if (segs.length < prefix.length) return false
  for (let i = 0; i < prefix.length; i++) if (segs[i] !== prefix[i] && !PARAM.test(prefix[i]!)) return false
  return true
}

/**
 * Whether the path a route was matched at falls under a prefix, read as its handler reads it: the route's static
 * segments and the router's decoded parameters (the wildcard's split at slashes and backslashes), compared
 * case-insensitively. The router takes `.` and `..` segments as they come, so `/admin/..` reaches `/{section}/{page}`
 * with section `admin` while its canonical path is `/`: prefix middleware decided per request runs when either form is
 * under its prefix.
 */
export function routed_under(
  route: readonly Segment[],
  prefix: readonly string[],
  req: { param(name: string): string },
): boolean {
  for (let i = 0; i < prefix.length; i++) {
    const s = route[i]
    if (s === undefined) return false
    if (s.kind === 'wildcard')
      return under_prefix(
        req
          .param('*')
          .split(/[\\/]/)
          .map((seg) => seg.toLowerCase()),
        prefix.slice(i),
      )
    const seg = s.kind === 'static' ? s.value : req.param(s.name)
    if (seg.toLowerCase() !== prefix[i] && !PARAM.test(prefix[i]!)) return false
  }
  return true
}

/**
 * The parameter names of a route path template: `'/users/{id}/posts/{post}'` gives `'id' | 'post'`, a trailing `/*`
 * gives `'*'`; a path that is not a literal gives `string`.
 */
export type PathParams<P extends string> = string extends P
  ? string
  : P extends `${string}{${infer N}}${infer R}`
    ? N | PathParams<R>
    : P extends `${string}/*`
      ? '*'
      : never
