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
    // A route is judged against prefixes by its literal segments, a request by its resolved path: `/./admin/x` would
    // serve `/admin/x` without an `/admin` guard.
    else if (part === '.' || part === '..')
      throw ERR_APP_BAD_PATH(path, `a "${part}" segment, which a request path resolves away`)
    else if (part.includes('\\')) throw ERR_APP_BAD_PATH(path, 'a backslash, which prefix matching reads as a slash')
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

/**
 * Whether every path `specific` matches is matched by `general` too, as the router matches them: a `{name}` takes any
 * one segment, a `/*` one or more, and a static segment itself (case-sensitive, as the router).
 * @example
 * covers(parse_route('/users/{id}'), parse_route('/users/me')) // true
 * covers(parse_route('/users/me'), parse_route('/users/{id}')) // false
 */
export function covers(general: readonly Segment[], specific: readonly Segment[]): boolean {
  for (let i = 0; i < general.length; i++) {
    const g = general[i]!
    const s = specific[i]
    if (s === undefined) return false
    if (g.kind === 'wildcard') return true
    if (s.kind === 'wildcard') return false
    if (g.kind === 'static' && (s.kind !== 'static' || s.value !== g.value)) return false
  }
  return general.length === specific.length
}

/**
 * The paths two route patterns both match, as one pattern, or undefined when they share none: segment by segment the
 * more specific of the two (a static segment over a `{name}`; a `/*` takes the rest of the other, which is never empty,
 * since a `/*` matches one or more segments, as in `covers`). Its parameters are named `p0`, `p1`... by position: the
 * two patterns' names may clash once combined.
 * @example
 * intersect(parse_route('/a/{x}/c'), parse_route('/a/b/{y}')) // the segments of /a/b/c
 * intersect(parse_route('/a/{x}'), parse_route('/b/{y}')) // undefined
 */
export function intersect(a: readonly Segment[], b: readonly Segment[]): Segment[] | undefined {
  const out: Segment[] = []
  for (let i = 0; ; i++) {
    const x = a[i]
    const y = b[i]
    if (x === undefined || y === undefined) return x === y ? out : undefined
    if (x.kind === 'wildcard' || y.kind === 'wildcard') {
      for (const s of (x.kind === 'wildcard' ? b : a).slice(i))
        out.push(s.kind === 'param' ? { kind: 'param', name: `p${out.length}` } : s)
      return out
    }
    if (x.kind === 'static' && y.kind === 'static' && x.value !== y.value) return undefined
    out.push(x.kind === 'static' ? x : y.kind === 'static' ? y : { kind: 'param', name: `p${out.length}` })
  }
}

/** How early the router tries a kind of segment: a static one, then a `{name}`, then a `/*` (find-my-way's order). */
const RANK = { static: 0, param: 1, wildcard: 2 } as const

/**
 * Which of two patterns matching one path the router takes: negative when `a`, positive when `b`. Segment by segment,
 * the first whose kinds differ decides, as the router tries a static segment before a `{name}`, and one before a `/*`.
 * @example
 * router_order(parse_route('/a/b/{y}'), parse_route('/a/{x}/c')) // negative: /a/b/c goes to /a/b/{y}
 */
export function router_order(a: readonly Segment[], b: readonly Segment[]): number {
  for (let i = 0; i < a.length && i < b.length; i++) {
    const d = RANK[a[i]!.kind] - RANK[b[i]!.kind]
    if (d !== 0) return d
  }
  return a.length - b.length
}

/** Path parameters by name, as the router gives them. */
export type RouterParams = Readonly<Record<string, string | undefined>>

/**
 * The parameters route `general` reads on the paths of `specific`, a pattern it covers, from those the router gives a
 * route registered at `specific`: a `{name}` of `general` is the static segment or the parameter of `specific` at its
 * place, and its `/*` the rest of the path, joined by `/`. Only names of `general` are given.
 * @example
 * const of = params_through(parse_route('/a/{x}/*'), parse_route('/a/b/{p2}'))
 * of({ p2: 'z' }) // { x: 'b', '*': 'z' }
 */
export function params_through(
  general: readonly Segment[],
  specific: readonly Segment[],
): (params: RouterParams) => Record<string, string> {
  const value = (s: Segment, params: RouterParams): string =>
    s.kind === 'static' ? s.value : (params[s.kind === 'param' ? s.name : '*'] ?? '')
  return (params) => {
    // No prototype: a parameter may be named `__proto__`.
    const out = Object.create(null) as Record<string, string>
    for (let i = 0; i < general.length; i++) {
      const g = general[i]!
      if (g.kind === 'param') out[g.name] = value(specific[i]!, params)
      else if (g.kind === 'wildcard')
        out['*'] = specific
          .slice(i)
          .map((s) => value(s, params))
          .join('/')
    }
    return out
  }
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
 * The canonical segments of a request path: the path read as the router reads the request target (an absolute-form
 * `http://host/p` from its path, a target not starting with `/` from its second character, ended at `?` or `#`),
 * percent-decoded once, `.` and empty segments removed, `..` resolved, backslashes treated as slashes, lowercased. Prefix
 * checks use this form.
 */
export function canonical_segments(url: string): string[] {
  let start = 0
  if (url.charCodeAt(0) !== 47) {
    // The router routes `http://host/admin` at `/admin`, and `*%2Fadmin` as if its `*` were the leading `/`.
    const authority = authority_start(url)
    if (authority !== -1) {
      const slash = url.indexOf('/', authority)
      const query = url.indexOf('?', authority)
      start = slash === -1 || (query !== -1 && query < slash) ? url.length : slash
    } else start = 1
  }
  let end = url.length
  const q = url.indexOf('?', start)
  if (q !== -1) end = q
  const h = url.indexOf('#', start)
  if (h !== -1 && h < end) end = h
  let path = start === 0 && end === url.length ? url : url.slice(start, end)
  try {
    path = decodeURIComponent(path)
  } catch {
    // Malformed escapes stay as sent; the router rejects them anyway.
  }
  return resolve_segments(path.split(/[\\/]/))
}

/** Path segments with empty and `.` ones dropped, `..` resolved, lowercased. */
function resolve_segments(parts: readonly string[]): string[] {
  const out: string[] = []
  for (const seg of parts) {
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
 * under its prefix. The path is also read as a handler resolving it reads it (`/files/*` with `*` the decoded `/admin/x`,
 * `/{a}/x/*` with `a/x/../../admin`): a host's router may read the target otherwise than the canonical path does (a `;`
 * delimiter), and its parameters are what the handler sees.
 */
export function routed_under(
  route: readonly Segment[],
  prefix: readonly string[],
  req: { param(name: string): string },
): boolean {
  return matched_under(route, prefix, req) || resolved_under(route, prefix, req)
}

function matched_under(
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

/** A parameter that changes the path once resolved: it holds a slash or backslash, or is `.` or `..`. */
const RESOLVES = /[\\/]|^\.\.?$/

/**
 * Whether the route's path rebuilt from its parameters, resolved as `canonical_segments` resolves a path, is under the
 * prefix. Rebuilt only on a route with a wildcard or with a parameter that resolution changes.
 */
function resolved_under(
  route: readonly Segment[],
  prefix: readonly string[],
  req: { param(name: string): string },
): boolean {
  let changes = false
  for (const s of route)
    if (s.kind === 'wildcard' || (s.kind === 'param' && RESOLVES.test(req.param(s.name)))) changes = true
  if (!changes) return false
  const parts: string[] = []
  for (const s of route)
    if (s.kind === 'static') parts.push(s.value)
    else parts.push(...req.param(s.kind === 'param' ? s.name : '*').split(/[\\/]/))
  return under_prefix(resolve_segments(parts), prefix)
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

/**
 * Where the authority of an absolute-form request target begins (`http://host/p`, `HTTPS://...`: past the `//`), or -1
 * for any other target. The router routes such a target by its path; `canonical_segments` and `origin_form` read it so.
 */
function authority_start(url: string): number {
  const scheme = url.indexOf('://')
  return scheme !== -1 && /^https?$/i.test(url.slice(0, scheme)) ? scheme + 3 : -1
}

/**
 * A request target in origin form, as lines and spans show it: an absolute-form target (`http://user:pass@host/p?q`,
 * which the router routes by its path) without its scheme and authority, which ends at its path, query or fragment (a
 * userinfo never reaches a log line or a span), `/` standing for an empty path; any other target as it is, without
 * allocating.
 * @example
 * origin_form('http://user:pass@example.com/users/1?page=2') // '/users/1?page=2'
 */
export function origin_form(target: string): string {
  if (target.charCodeAt(0) === 47) return target
  const authority = authority_start(target)
  if (authority === -1) return target
  let end = authority
  while (end < target.length && !'/?#'.includes(target[end]!)) end++
  const rest = target.slice(end)
  return rest.charCodeAt(0) === 47 ? rest : `/${rest}`
}
