// One cached response: status, body, headers and the time it was created.
import { ERR_CACHE_BAD_ENTRY } from './errors.js'
import { HeaderUtil, set_own, type HeaderMap } from './header-util.js'

/** What a `CacheEntry` is built from; `status` defaults to 200, `body` to '' and `headers` to none. */
export interface CacheEntryInit {
  status?: number
  body?: string
  headers?: Readonly<HeaderMap>
  /** Creation time in ms; the entry's age is `now_ms - created_at_ms`. */
  created_at_ms: number
}

function checked_headers(headers: unknown): Readonly<HeaderMap> {
  // A Map or a fetch `Headers` keeps its values out of its own properties: read as an object it would be empty, silently.
  if (typeof headers !== 'object' || headers === null || Symbol.iterator in headers) {
    throw ERR_CACHE_BAD_ENTRY('headers', 'an object of string values', headers)
  }
  const source = headers as Record<string, unknown>
  const out: HeaderMap = {}
  for (const name of Object.keys(source)) {
    const value = source[name]
    if (typeof value !== 'string') throw ERR_CACHE_BAD_ENTRY(`headers[${JSON.stringify(name)}]`, 'a string', value)
    set_own(out, HeaderUtil.toLower(name), value)
  }
  return Object.freeze(out)
}

/**
 * An immutable cached response. The constructor checks every field and keeps its own frozen copy of the headers with
 * lowercased names (of two names that differ only in case, the later one wins), so no caller can change an entry after
 * it is stored. `Cache.put` builds one from any object of this shape.
 * @example
 * const entry = new CacheEntry({
 *   body: '{"ok":true}',
 *   headers: { 'content-type': 'application/json' },
 *   created_at_ms: Date.now(),
 * })
 */
export class CacheEntry {
  readonly status: number
  readonly body: string
  readonly headers: Readonly<HeaderMap>
  readonly created_at_ms: number

  constructor(init: CacheEntryInit) {
    const { status = 200, body = '', headers = {}, created_at_ms } = init
    if (!Number.isInteger(status) || status < 100 || status > 599)
      throw ERR_CACHE_BAD_ENTRY('status', 'an integer from 100 to 599', status)
    if (typeof body !== 'string') throw ERR_CACHE_BAD_ENTRY('body', 'a string', body)
    if (typeof created_at_ms !== 'number' || !Number.isFinite(created_at_ms)) {
      throw ERR_CACHE_BAD_ENTRY('created_at_ms', 'a finite number of ms', created_at_ms)
    }
    this.status = status
    this.body = body
    this.headers = checked_headers(headers)
    this.created_at_ms = created_at_ms
    Object.freeze(this)
  }
}
