// The `Sec-WebSocket-Extensions` header as ws reads it on a route with compression on: which headers ws would refuse
// with its own text/html 400, so that the route's gate refuses them first, in fw's JSON.

/** A token (RFC 9110), ws's `tokenChars`. */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+"
/** A parameter value: a token, or a quoted string of token characters, each of which may be escaped (RFC 6455 9.1). */
const VALUE = `(?:${TOKEN}|"(?:[!#$%&'*+.^_\`|~0-9A-Za-z-]|\\\\[!#$%&'*+.^_\`|~0-9A-Za-z-])+")`
/** One offer: a name, then `; param` or `; param=value`, with no whitespace around `=` (as ws's parser). */
const OFFER = `${TOKEN}(?:[ \\t]*;[ \\t]*${TOKEN}(?:=${VALUE})?)*`
/** The offers, separated by commas; no whitespace at either end of the header. */
const OFFERS = new RegExp(`^${OFFER}(?:[ \\t]*,[ \\t]*${OFFER})*$`)

const DEFLATE = 'permessage-deflate'
const OWS = /^[ \t]+|[ \t]+$/g

/**
 * Whether ws takes `header` on a server with permessage-deflate on: it parses (its `extension.parse`), and each
 * `permessage-deflate` offer holds only its four parameters, each at most once, with a value it accepts
 * (`PerMessageDeflate#normalizeParams`: window bits an integer 8-15, optional for the client's; the no-context-takeover
 * flags without a value). Other extensions are ignored, as ws ignores them. True without the header.
 *
 * Whether an offer is acceptable under a host's own deflate options (`serverMaxWindowBits: false`...) is not checked:
 * ws's defaults, fw's, accept every offer that passes.
 */
export function extensions_ok(header: string | undefined): boolean {
  if (header === undefined) return true
  if (!OFFERS.test(header)) return false
  // Parsed, the header holds no comma or semicolon inside a quoted value (only token characters): a split is exact.
  for (const offer of header.split(',')) {
    const [name, ...params] = offer.split(';').map((part) => part.replace(OWS, ''))
    if (name === DEFLATE && !deflate_params_ok(params)) return false
  }
  return true
}

function deflate_params_ok(params: readonly string[]): boolean {
  const seen = new Set<string>()
  for (const param of params) {
    const eq = param.indexOf('=')
    const key = eq === -1 ? param : param.slice(0, eq)
    if (seen.has(key)) return false
    seen.add(key)
    // A quoted value is read unquoted and unescaped, as ws reads it.
    const value =
      eq === -1
        ? undefined
        : param
            .slice(eq + 1)
            .replace(/^"|"$/g, '')
            .replace(/\\/g, '')
    if (key === 'client_no_context_takeover' || key === 'server_no_context_takeover') {
      if (value !== undefined) return false
    } else if (key === 'client_max_window_bits') {
      if (value !== undefined && !window_bits(value)) return false
    } else if (key !== 'server_max_window_bits' || value === undefined || !window_bits(value)) return false
  }
  return true
}

/** A window size as ws reads it: `Number(value)`, an integer from 8 to 15. */
function window_bits(value: string): boolean {
  const n = Number(value)
  return Number.isInteger(n) && n >= 8 && n <= 15
}
