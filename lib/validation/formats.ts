// String formats beyond email, each a linear-time check: UUID, absolute URI, RFC 3339 date-time.

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-](\d{2}):(\d{2}))$/

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

/** Whether `text` is an RFC 3339 date-time with a real calendar date and an offset. */
export function is_date_time(text: string): boolean {
  const m = DATE_TIME.exec(text)
  if (m === null) return false
  const month = Number(m[2])
  const day = Number(m[3])
  const offset_ok = m[7] === undefined || (Number(m[7]) <= 23 && Number(m[8]) <= 59)
  // Second 60 is a leap second, which RFC 3339 allows.
  return month >= 1 && month <= 12 && day >= 1 && day <= days_in(Number(m[1]), month) &&
    Number(m[4]) <= 23 && Number(m[5]) <= 59 && Number(m[6]) <= 60 && offset_ok
}
