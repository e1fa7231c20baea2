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

/** Whether `text` is an RFC 3339 date-time with a real calendar date and an offset. */
export function is_date_time(text: string): boolean {
  const m = DATE_TIME.exec(text)
  if (m === null) return false
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as number[]
  const days = new Date(Date.UTC(year!, month!, 0)).getUTCDate()
  const offset_ok = m[7] === undefined || (Number(m[7]) <= 23 && Number(m[8]) <= 59)
  // Second 60 is a leap second, which RFC 3339 allows.
  return month! >= 1 && month! <= 12 && day! >= 1 && day! <= days && hour! <= 23 && minute! <= 59 && second! <= 60 && offset_ok
}
