// A practical email check in linear time: one pass over the characters, no regex and no allocation.

/** The longest address that fits an SMTP path (RFC 5321: 256 including the angle brackets). */
const MAX_EMAIL = 254
const MAX_LOCAL = 64
const MAX_LABEL = 63
const DOT = 0x2e
const HYPHEN = 0x2d

/**
 * Character classes by ASCII code: 1 an RFC 5322 `atext` character, 2 also a domain letter or hyphen, 3 also a digit.
 */
const CLASS = new Uint8Array(128)
for (const c of "!#$%&'*+/=?^_`{|}~") CLASS[c.charCodeAt(0)] = 1
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-') CLASS[c.charCodeAt(0)] = 2
for (const c of '0123456789') CLASS[c.charCodeAt(0)] = 3

/** The class of the character at `i` (0 for anything outside ASCII or the classes). */
function class_at(text: string, i: number): number {
  const c = text.charCodeAt(i)
  return c < 128 ? CLASS[c]! : 0
}

/**
 * Whether `text` looks like a deliverable address: `local@domain`, ASCII only, at most 254 characters. The local part
 * is dot-separated atoms (no leading, trailing or doubled dot, no quoting, at most 64 characters); the domain has at
 * least two labels of letters, digits and inner hyphens (1-63 characters each) and a top label that is not all digits.
 * No IP literals and no comments.
 * @example
 * is_email('ada@example.com') // true
 * is_email('ada@localhost')   // false
 */
export function is_email(text: string): boolean {
  if (text.length > MAX_EMAIL) return false
  const at = text.indexOf('@')
  if (at < 1 || at > MAX_LOCAL || at !== text.lastIndexOf('@')) return false
  return is_local(text, at) && is_domain(text, at + 1)
}

/** Whether `text` before `end` is dot-separated non-empty atoms. */
function is_local(text: string, end: number): boolean {
  let after_dot = true
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === DOT) {
      if (after_dot) return false
      after_dot = true
    } else if (class_at(text, i) === 0) return false
    else after_dot = false
  }
  return !after_dot
}

/**
 * Whether `text` from `start` is two or more labels, each 1-63 letters, digits or inner hyphens, the last not all
 * digits.
 */
function is_domain(text: string, start: number): boolean {
  let labels = 0
  let from = start
  let digits = true
  for (let i = start; i <= text.length; i++) {
    if (i === text.length || text.charCodeAt(i) === DOT) {
      const n = i - from
      if (n < 1 || n > MAX_LABEL || text.charCodeAt(from) === HYPHEN || text.charCodeAt(i - 1) === HYPHEN) return false
      labels++
      if (i === text.length) return labels >= 2 && !digits
      from = i + 1
      digits = true
    } else {
      const c = class_at(text, i)
      if (c < 2) return false
      if (c === 2) digits = false
    }
  }
  return false
}
