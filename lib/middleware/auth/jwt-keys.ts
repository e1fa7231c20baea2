// The keys `jwt` verifies with: an HMAC secret (text, bytes or an `oct` JWK), a public key (PEM or JWK), or a remote
// JWKS.
import { createPublicKey, KeyObject, type JsonWebKey } from 'node:crypto'
import type { createRemoteJWKSet } from 'jose'
import { ERR_AUTH_BAD_OPTION, ERR_AUTH_JWKS_UNAVAILABLE } from './errors.js'
import { check } from './options.js'

/** The algorithms `jwt` verifies; `none` is never one of them. */
export type JwtAlgorithm =
  | 'HS256'
  | 'HS384'
  | 'HS512'
  | 'RS256'
  | 'RS384'
  | 'RS512'
  | 'PS256'
  | 'PS384'
  | 'PS512'
  | 'ES256'
  | 'ES384'
  | 'ES512'
  | 'EdDSA'

const HMAC: readonly JwtAlgorithm[] = ['HS256', 'HS384', 'HS512']
const RSA: readonly JwtAlgorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512']
const ASYMMETRIC: readonly JwtAlgorithm[] = [...RSA, 'ES256', 'ES384', 'ES512', 'EdDSA']

/** The algorithms a public key can verify, by its type (and curve). */
function algorithms_of(key: KeyObject): readonly JwtAlgorithm[] {
  const type = key.asymmetricKeyType
  if (type === 'rsa') return RSA
  if (type === 'rsa-pss') return ['PS256', 'PS384', 'PS512']
  if (type === 'ed25519' || type === 'ed448') return ['EdDSA']
  const curve = key.asymmetricKeyDetails?.namedCurve
  return curve === 'prime256v1' ? ['ES256'] : curve === 'secp384r1' ? ['ES384'] : curve === 'secp521r1' ? ['ES512'] : []
}

/** Options of `jwt` that say which key verifies a token: exactly one of `secret`, `public_key` and `jwks`. */
export interface JwtKeyOptions {
  /** HMAC secret for HS256/384/512: text, bytes, or a JWK `{ kty: 'oct', k }` as identity providers hand them out. */
  secret?: string | Buffer | JsonWebKey
  /** Public key for RS/PS/ES/EdDSA: PEM text (a public key or certificate) or a public JWK. */
  public_key?: string | JsonWebKey
  /**
   * URL of a JSON Web Key Set: keys fetched on demand, cached, picked by `kid`, refetched on an unknown `kid`
   * (rate-limited).
   */
  jwks?: string
  /** Longest wait for the key set, in ms (default 2000); a slower endpoint counts as unavailable. */
  jwks_timeout_ms?: number
  /** Least time between two fetches caused by an unknown `kid`, in ms (default 30000). */
  jwks_cooldown_ms?: number
  /** How long a fetched key set is used before it is fetched again, in ms (default 600000). */
  jwks_max_age_ms?: number
  /** Status while the key set cannot be fetched: 503 `jwks_unavailable` (default) or 401 `invalid_token`. */
  jwks_unavailable?: 401 | 503
  /** Accepted algorithms, pinned here and never taken from the token (default by key: HS256, RS256, ES256...). */
  algorithms?: readonly JwtAlgorithm[]
}

/** The key (or async key lookup) and pinned algorithms fast-jwt is given. */
export interface KeyConfig {
  key: string | Buffer | ((decoded: { header: { alg?: string; kid?: string } }) => Promise<string>)
  algorithms: JwtAlgorithm[]
}

const pinned = (value: unknown, family: readonly JwtAlgorithm[]): JwtAlgorithm[] =>
  check.names('jwt', 'algorithms', value, true).map((a) => check.one_of('jwt', 'algorithms', a, family))

/** The HMAC secret as bytes; never quoted in an error. */
function hmac_secret(secret: unknown): Buffer {
  const jwk =
    typeof secret === 'object' && secret !== null && !Buffer.isBuffer(secret) ? (secret as JsonWebKey) : undefined
  const bytes =
    typeof secret === 'string'
      ? Buffer.from(secret)
      : Buffer.isBuffer(secret)
        ? secret
        : jwk?.kty === 'oct' && typeof jwk.k === 'string'
          ? Buffer.from(jwk.k, 'base64url')
          : undefined
  check.must(
    bytes !== undefined && bytes.length > 0,
    'jwt',
    'secret',
    'a non-empty string, Buffer or oct JWK',
    secret,
    true,
  )
  // A PEM key used as an HMAC secret lets anyone holding the public key sign tokens (the RS256/HS256 confusion).
  check.must(!bytes!.includes('-----BEGIN'), 'jwt', 'secret', 'an HMAC secret, not a PEM key', secret, true)
  return bytes!
}

/** The public key; a private key is refused (createPublicKey would derive one, but it has no place in a verifier). */
function public_pem(value: unknown): KeyObject {
  const is_private =
    typeof value === 'string'
      ? value.includes('PRIVATE KEY')
      : typeof value === 'object' && value !== null && 'd' in value
  if (is_private) throw ERR_AUTH_BAD_OPTION('jwt', 'public_key', 'a public key as PEM or JWK', value, true)
  try {
    const k =
      typeof value === 'string' ? createPublicKey(value) : createPublicKey({ key: value as JsonWebKey, format: 'jwk' })
    if (k.type === 'public') return k
  } catch {
    // Reported below as a bad option.
  }
  throw ERR_AUTH_BAD_OPTION('jwt', 'public_key', 'a public key as PEM or JWK', value, true)
}

type RemoteSet = ReturnType<typeof createRemoteJWKSet>

/** The key lookup of a remote JWKS: jose picks the key by kid and alg, caches the set and rate-limits refetches. */
function remote(url: string, o: JwtKeyOptions): KeyConfig['key'] {
  let parsed: URL | undefined
  try {
    parsed = new URL(url)
  } catch {
    parsed = undefined
  }
  check.must(parsed !== undefined && /^https?:$/.test(parsed.protocol), 'jwt', 'jwks', 'an http(s) URL', url)
  const options = {
    timeoutDuration: check.int('jwt', 'jwks_timeout_ms', o.jwks_timeout_ms ?? 2000, 1),
    cooldownDuration: check.int('jwt', 'jwks_cooldown_ms', o.jwks_cooldown_ms ?? 30_000, 0),
    cacheMaxAge: check.int('jwt', 'jwks_max_age_ms', o.jwks_max_age_ms ?? 600_000, 1),
  }
  // jose (ESM only) loads with the first token to check rather than with `import 'fw'`; one set for all requests.
  let set: Promise<RemoteSet> | undefined
  const pems = new WeakMap<object, string>()
  return async ({ header }) => {
    let key: Awaited<ReturnType<RemoteSet>>
    try {
      set ??= import('jose').then((jose) => jose.createRemoteJWKSet(parsed!, options))
      key = await (await set)({ alg: header.alg ?? '', ...(header.kid !== undefined && { kid: header.kid }) })
    } catch (err) {
      const code = (err as { code?: unknown }).code
      if (code === 'ERR_JWKS_NO_MATCHING_KEY' || code === 'ERR_JWKS_MULTIPLE_MATCHING_KEYS') throw err
      throw ERR_AUTH_JWKS_UNAVAILABLE(err instanceof Error ? err.message : String(err), { cause: err })
    }
    let pem = pems.get(key)
    if (pem === undefined) pems.set(key, (pem = KeyObject.from(key).export({ type: 'spki', format: 'pem' }) as string))
    return pem
  }
}

/**
 * Checks the key options and pins the algorithms to the key's family, so no token can pick HS256 against a public key.
 */
export function key_config(o: JwtKeyOptions): KeyConfig {
  const given = (['secret', 'public_key', 'jwks'] as const).filter((k) => o[k] !== undefined)
  check.must(
    given.length === 1,
    'jwt',
    'secret, public_key and jwks',
    'given one at a time (exactly one of them)',
    given,
  )
  if (o.secret !== undefined) return { key: hmac_secret(o.secret), algorithms: pinned(o.algorithms ?? ['HS256'], HMAC) }
  if (o.jwks !== undefined) return { key: remote(o.jwks, o), algorithms: pinned(o.algorithms ?? ['RS256'], ASYMMETRIC) }
  const key = public_pem(o.public_key)
  const fits = algorithms_of(key)
  const algorithms = pinned(o.algorithms ?? fits.slice(0, 1), fits)
  return { key: key.export({ type: 'spki', format: 'pem' }) as string, algorithms }
}
