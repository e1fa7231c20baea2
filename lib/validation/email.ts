// A practical email check in linear time: plain splits and single-class patterns, no backtracking-prone regex.

/** The longest address that fits an SMTP path (RFC 5321: 256 including the angle brackets). */
const MAX_EMAIL = 254
const MAX_LOCAL = 64
const MAX_LABEL = 63
/** The characters of an RFC 5322 dot-atom part (`atext`). */
const ATEXT = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+$/
const LABEL = /^[A-Za-z0-9-]+$/
const DIGITS = /^[0-9]+$/

/**
 * Whether `text` looks like a deliverable address: `local@domain`, ASCII only, at most 254 characters.
 * The local part is dot-separated atoms (no leading, trailing or doubled dot, no quoting, at most 64 characters); the
 * domain has at least two labels of letters, digits and inner hyphens (1-63 characters each) and a top label that is
 * not all digits. No IP literals and no comments.
 * @example
 * is_email('ada@example.com') // true
 * is_email('ada@localhost')   // false
 */
export function is_email(text: string): boolean {
  if (text.length > MAX_EMAIL) return false
  const at = text.indexOf('@')
  if (at < 1 || at !== text.lastIndexOf('@')) return false
  const local = text.slice(0, at)
  if (local.length > MAX_LOCAL || !local.split('.').every((atom) => ATEXT.test(atom))) return false
  const labels = text.slice(at + 1).split('.')
  if (labels.length < 2 || !labels.every(is_label)) return false
  return !DIGITS.test(labels[labels.length - 1] ?? '')
}

function is_label(label: string): boolean {
  return label.length <= MAX_LABEL && LABEL.test(label) && !label.startsWith('-') && !label.endsWith('-')
}
