// The HTTP text rules modules share without loading each other: the token grammar (apart from the Response, so that
// option checkers can use it without loading the Response) and query-string decoding (cache keys and log redaction).

/** An HTTP token (RFC 9110): what a header, method or cookie name may be. */
export const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

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
