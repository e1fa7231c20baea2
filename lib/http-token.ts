// The HTTP text rules modules share without loading each other: the token grammar (apart from the Response, so that
// option checkers can use it without loading the Response), JSON media types (the Response's `json()` and the
// Request's, through `is_json_media_type`), query-string decoding (cache keys and log redaction) and entity-tag lists
// (the etag middleware and http_cache), HTTP-dates (conditional requests on a file, and http_cache's), and the one
// request header read under another name (`host`, HTTP/2's `:authority`).

/** An HTTP token (RFC 9110): what a header, method or cookie name may be. */
export const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/**
 * A JSON media type: `application/json` or a `+json` suffix (RFC 6839: `application/problem+json`,
 * `application/vnd.api+json`), any case, parameters allowed after optional whitespace (RFC 9110 8.3.1). Not
 * `text/json`, `application/jsonx` nor `application/json-seq`.
 */
export const JSON_MEDIA_TYPE =
  /^(?:application\/json|[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+\+json)[ \t]*(?:;|$)/i

/** The length of `application/json`. */
const APPLICATION_JSON_LENGTH = 16

/**
 * Whether a `Content-Type` names a JSON media type (`JSON_MEDIA_TYPE`); false when absent. A lowercase
 * `application/json`, alone or right before its `;`, is told by a string check, without the pattern.
 */
export function is_json_media_type(content_type: string | undefined): boolean {
  if (content_type === undefined) return false
  // `application/json` itself, not `application/jsonx` or `application/json-seq`; whitespace is left to the pattern.
  if (
    content_type.startsWith('application/json') &&
    (content_type.length === APPLICATION_JSON_LENGTH || content_type.charCodeAt(APPLICATION_JSON_LENGTH) === 0x3b)
  )
    return true
  return JSON_MEDIA_TYPE.test(content_type)
}

/**
 * What Node refuses to write in a header value (`ERR_INVALID_CHAR`): CR, LF, NUL, any other control byte but tab, and
 * characters above U+00FF. Refused where a value is given, not when the answer is written and the host's own 500 goes out.
 */
export const BAD_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/

/** How option errors name a value `BAD_HEADER_VALUE` refuses. */
export const HEADER_VALUE_RULE = 'without CR, LF or another control byte but tab, or a character above U+00FF'

/**
 * A query-string name or value as the query parser (fast-querystring) reads it: `+` is a space, then percent-decoded;
 * kept with its spaces when an escape is malformed.
 */
export function query_decode(text: string): string {
  const spaced = text.includes('+') ? text.replace(/\+/g, ' ') : text
  if (!spaced.includes('%')) return spaced
  try {
    return decodeURIComponent(spaced)
  } catch {
    return spaced
  }
}

/** The opaque part of a tag, for the weak comparison RFC 9110 8.8.3.2 asks of If-None-Match. */
function opaque(tag: string): string {
  return tag.trim().replace(/^W\//, '')
}

/**
 * An entity tag in a list header: quoted, and its quotes may hold a comma (RFC 9110 8.8.3 `etagc`). A lowercase `w/`
 * is matched too, so it is not skipped over to leave its quoted part looking like a strong tag: the weak prefix is
 * case-sensitive `W/`, and a `w/"x"` names no tag (as `fresh`, behind @fastify/send, has it).
 */
const ENTITY_TAG = /(?:[Ww]\/)?"[^"]*"/g

/**
 * Whether a list header (`If-None-Match`, `If-Match`) names `tag` or is `*`; `strong` refuses weak tags on either side
 * (If-Match, RFC 9110 13.1.1), else the comparison is weak (If-None-Match, 13.1.2).
 */
export function tag_listed(header: string, tag: string, strong: boolean): boolean {
  if (header.trim() === '*') return true
  if (strong && tag.startsWith('W/')) return false
  const wanted = opaque(tag)
  return (header.match(ENTITY_TAG) ?? []).some(
    (t) => !t.startsWith('w/') && (!strong || !t.startsWith('W/')) && opaque(t) === wanted,
  )
}

/**
 * The three forms of an HTTP-date (RFC 9110 5.6.7): IMF-fixdate (group 1), then the obsolete RFC 850 and asctime
 * (group 2) forms.
 */
const HTTP_DATE =
  /^(?:([A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT)|[A-Z][a-z]{5,8}, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT|([A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}))$/

/** The time an HTTP-date names, in ms; NaN for anything else (`Date.parse` alone takes `1` for 2001) or none. */
export function http_date(value: string | undefined): number {
  const form = value === undefined ? null : HTTP_DATE.exec(value)
  if (form === null) return NaN
  // asctime names no zone, and is GMT: without one, `Date.parse` would read it in the local zone.
  return Date.parse(form[2] === undefined ? form[0] : `${form[2]} GMT`)
}

/**
 * An HTTP-date in its IMF-fixdate form: `value` itself when it is one, an obsolete form rewritten, undefined for a
 * value that is no HTTP-date (or names no time).
 */
export function imf_fixdate(value: string): string | undefined {
  const form = HTTP_DATE.exec(value)
  if (form?.[1] !== undefined) return value
  const ms = form === null ? NaN : http_date(value)
  return Number.isNaN(ms) ? undefined : new Date(ms).toUTCString()
}

/**
 * The name a request header is read under when the request has none of `name` (lowercase): `host` reads HTTP/2's
 * `:authority` (RFC 9113 8.3.1: it stands for Host), so one authority reads the same over either protocol; undefined
 * for every other name. The Request's `header` and http_cache's key both read by it.
 */
export function header_fallback(name: string): string | undefined {
  return name === 'host' ? ':authority' : undefined
}
