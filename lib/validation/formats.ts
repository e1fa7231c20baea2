// String formats beyond email, each a linear-time check: UUID, absolute URI, RFC 3339 date-time.

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/

/** Whether `text` is a UUID in its 8-4-4-4-12 hex form. */
export function is_uuid(text: string): boolean {
  return UUID.test(text)
}

/** Whether `text` is an absolute URI: a scheme, then anything WHATWG URL parsing accepts, without spaces. */
export function is_uri(text: string): boolean {
  return text.length <= 8192 && SCHEME.test(text) && !/\s/.test(text) && URL.canParse(text)
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function days_in(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  return month === 2 && leap ? 29 : (DAYS[month - 1] ?? 0)
}

/** The number written by the `n` ASCII digits at `i` of `text`, or -1 when one of them is not a digit. */
function digits(text: string, i: number, n: number): number {
  let value = 0
  for (let j = i; j < i + n; j++) {
    const d = text.charCodeAt(j) - 48
    if (!(d >= 0 && d <= 9)) return -1
    value = value * 10 + d
  }
  return value
}

/**
 * The length of `.fraction` at `i`, 0 when there is none, -1 when it is malformed. RFC 3339 (`time-secfrac = "."
 * 1*DIGIT`) sets no upper bound on the digits, so neither does this; at least one is needed.
 */
function fraction(text: string, i: number): number {
  if (text[i] !== '.') return 0
  let n = 1
  while (digits(text, i + n, 1) >= 0) n++
  return n >= 2 ? n : -1
}

/** Whether the offset at `i` ends `text`: `Z`, `z`, or `+hh:mm` / `-hh:mm` within 23:59. */
function offset(text: string, i: number): boolean {
  const c = text[i]
  if (c === 'Z' || c === 'z') return text.length === i + 1
  if ((c !== '+' && c !== '-') || text.length !== i + 6 || text[i + 3] !== ':') return false
  const h = digits(text, i + 1, 2)
  const m = digits(text, i + 4, 2)
  return h >= 0 && h <= 23 && m >= 0 && m <= 59
}

/** Whether `text` is an RFC 3339 date-time with a real calendar date and an offset (read in one pass, no regex). */
export function is_date_time(text: string): boolean {
  if (text.length < 20 || text[4] !== '-' || text[7] !== '-' || text[13] !== ':' || text[16] !== ':') return false
  const t = text[10]
  if (t !== 'T' && t !== 't' && t !== ' ') return false
  const year = digits(text, 0, 4)
  const month = digits(text, 5, 2)
  const day = digits(text, 8, 2)
  const hour = digits(text, 11, 2)
  const minute = digits(text, 14, 2)
  const second = digits(text, 17, 2)
  const frac = fraction(text, 19)
  // Second 60 is a leap second, which RFC 3339 allows.
  return (
    year >= 0 &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= days_in(year, month) &&
    hour >= 0 &&
    hour <= 23 &&
    minute >= 0 &&
    minute <= 59 &&
    second >= 0 &&
    second <= 60 &&
    frac >= 0 &&
    offset(text, 19 + frac)
  )
}
