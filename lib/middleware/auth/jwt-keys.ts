// The keys `jwt` verifies with: an HMAC secret (text, bytes or an `oct` JWK), a public key (PEM or JWK), or a remote
// JWKS.
import { createPublicKey, KeyObject } from 'node:crypto'
import type { createLocalJWKSet, createRemoteJWKSet } from 'jose'
import type { JWKSMultipleMatchingKeys } from 'jose/errors'
import { ERR_AUTH_BAD_OPTION, ERR_AUTH_JWKS_UNAVAILABLE, ERR_AUTH_WEAK_SECRET } from './errors.js'
import { option_checker } from '../../options.js'

const check = option_checker(ERR_AUTH_BAD_OPTION, 'jwt')

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

/**
 * A JSON Web Key (RFC 7517 and 7518 members). fw's own type: `@types/node` 25 and later no longer export `JsonWebKey`
 * from `node:crypto`, and fw's published declarations compile against every `@types/node` it supports; a key typed
 * as Node's or the Web Crypto `JsonWebKey` is one of these.
 */
export interface Jwk {
  kty?: string
  alg?: string
  use?: string
  key_ops?: string[]
  kid?: string
  ext?: boolean
  crv?: string
  x?: string
  y?: string
  d?: string
  n?: string
  e?: string
  p?: string
  q?: string
  dp?: string
  dq?: string
  qi?: string
  k?: string
  oth?: unknown[]
  x5c?: string[]
  x5t?: string
  x5u?: string
}

/** What `createPublicKey` takes as a JWK, named through the function whatever `@types/node` calls the type. */
type JwkInput = Extract<Parameters<typeof createPublicKey>[0], { format: 'jwk' }>

/** Options of `jwt` that say which key verifies a token: exactly one of `secret`, `public_key` and `jwks`. */
export interface JwtKeyOptions {
  /**
   * HMAC secret for HS256/384/512: text, bytes (a `Buffer` or `Uint8Array`), or a JWK `{ kty: 'oct', k }` as identity
   * providers hand them out; at least as long as the hash (32 bytes for HS256, 48 for HS384, 64 for HS512).
   */
  secret?: string | Uint8Array | Jwk
  /** Public key for RS/PS/ES/EdDSA: PEM text (a public key or certificate) or a public JWK. */
  public_key?: string | Jwk
  /**
   * URL of a JSON Web Key Set: keys fetched on demand, cached, picked by `kid`, refetched on an unknown `kid`
   * (rate-limited); a token without `kid` is checked with each key that fits its `alg`, when at most 4 do.
   */
  jwks?: string
  /** Longest wait for the key set, in ms (default 2000); a slower endpoint counts as unavailable. */
  jwks_timeout_ms?: number
  /**
   * Least time between two fetches caused by an unknown `kid`, a failed one included, in ms (default 30000); after a
   * failed fetch with no key set held, tokens are refused at once until it ends.
   */
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
  /**
   * With `jwks`: the `Retry-After` of a 503 `jwks_unavailable`, in whole seconds (at least 1): what is left of the
   * cooldown a failed fetch started, when the next fetch may be made.
   */
  retry_after_s?: () => number
}

const pinned = (value: unknown, family: readonly JwtAlgorithm[]): JwtAlgorithm[] =>
  check.names('algorithms', value).map((a) => check.one_of('algorithms', a, family))

/** The bytes an HMAC key needs: the size of its hash (RFC 7518 section 3.2). */
const HMAC_BYTES: Record<string, number> = { HS256: 32, HS384: 48, HS512: 64 }

/** The secret's bytes: text as UTF-8, a Buffer or Uint8Array as is, an `oct` JWK decoded; undefined for anything else. */
function secret_bytes(secret: unknown): Buffer | undefined {
  if (typeof secret === 'string') return Buffer.from(secret)
  if (secret instanceof Uint8Array) return Buffer.from(secret.buffer, secret.byteOffset, secret.byteLength)
  const jwk = typeof secret === 'object' && secret !== null ? (secret as Jwk) : undefined
  return jwk?.kty === 'oct' && typeof jwk.k === 'string' ? Buffer.from(jwk.k, 'base64url') : undefined
}

/** Whether `bytes` are the JSON text of a JWK or a JWK set: an object with `kty` or `keys`. */
function jwk_text(bytes: Buffer): boolean {
  const text = bytes.toString('utf8').trim()
  if (!text.startsWith('{')) return false
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && ('kty' in value || 'keys' in value)
  } catch {
    return false
  }
}

/**
 * The HMAC secret as bytes, at least as long as the hash of the strongest pinned algorithm; never quoted in an error.
 * With `weak_from` (a development preset's name) a shorter secret is accepted with a warning instead.
 */
function hmac_secret(secret: unknown, algorithms: readonly JwtAlgorithm[], weak_from: string | undefined): Buffer {
  const bytes = secret_bytes(secret)
  check.must(
    bytes !== undefined && bytes.length > 0,
    'secret',
    'a non-empty string, Buffer, Uint8Array or oct JWK',
    secret,
    { secret: true },
  )
  // A PEM key used as an HMAC secret lets anyone holding the public key sign tokens (the RS256/HS256 confusion); so does
  // a public JWK (or JWK set) pasted as JSON text, from an environment variable or a file read as bytes.
  check.must(!bytes!.includes('-----BEGIN'), 'secret', 'an HMAC secret, not a PEM key', secret, { secret: true })
  const as_text = typeof secret === 'string' || secret instanceof Uint8Array
  const jwk = 'an HMAC secret, not JWK text (give an oct JWK as an object)'
  check.must(!as_text || !jwk_text(bytes!), 'secret', jwk, secret, { secret: true })
  const alg = algorithms.reduce((a, b) => (HMAC_BYTES[b]! > HMAC_BYTES[a]! ? b : a))
  const need = HMAC_BYTES[alg]!
  if (bytes!.length < need) {
    check.must(weak_from !== undefined, 'secret', `at least ${need} bytes for ${alg}`, secret, { secret: true })
    process.emitWarning(ERR_AUTH_WEAK_SECRET(weak_from!, bytes!.length, need, alg))
  }
  return bytes!
}

/** The public key; a private key is refused (createPublicKey would derive one, but it has no place in a verifier). */
function public_pem(value: unknown): KeyObject {
  const is_private =
    typeof value === 'string'
      ? value.includes('PRIVATE KEY')
      : typeof value === 'object' && value !== null && 'd' in value
  if (is_private) check.fail('public_key', 'a public key as PEM or JWK', value, { secret: true })
  try {
    const k =
      typeof value === 'string'
        ? createPublicKey(value)
        : createPublicKey({ key: value as JwkInput['key'], format: 'jwk' })
    if (k.type === 'public') return k
  } catch {
    // Reported below as a bad option.
  }
  return check.fail('public_key', 'a public key as PEM or JWK', value, { secret: true })
}

/**
 * Most keys of a JWKS tried for a token without `kid` when several fit its `alg`: a rotation publishes the old and the
 * new key, some providers the next one too; each try is one signature check, so a forged token costs at most this many.
 * A set with more such keys refuses a token without `kid`, as an unknown key is refused.
 */
export const MAX_KEYS_WITHOUT_KID = 4

/** A public key of a JWKS as fast-jwt takes it: one object per key while jose holds the set, so it can key a cache. */
export interface JwksKey {
  readonly pem: string
}

/**
 * What a JWKS lookup throws for a token without `kid` that several keys of the set fit (at most
 * `MAX_KEYS_WITHOUT_KID`): `jwt` then checks the token with each key in turn, as jose's `jwtVerify` does.
 */
export class SeveralKeys extends Error {
  constructor(readonly keys: readonly JwksKey[]) {
    super('several keys of the JWKS fit a token without kid')
  }
}

type RemoteSet = ReturnType<typeof createRemoteJWKSet>
type LocalSet = ReturnType<typeof createLocalJWKSet>

/**
 * The key lookup of a remote JWKS: jose picks the key by kid and alg, caches the set and rate-limits refetches; a token
 * without kid that several keys fit gets them as `SeveralKeys`. A token whose `alg` is not among `algorithms` (none,
 * HS256, unknown, missing) is refused before any lookup, so a forged header neither fetches the set nor reads as an
 * outage.
 */
function remote(url: string, o: JwtKeyOptions, algorithms: readonly JwtAlgorithm[]): Omit<KeyConfig, 'algorithms'> {
  const parsed = check.url('jwks', url, ['http:', 'https:'], 'an http(s) URL')
  // fetch() refuses a URL with credentials: taken here, it would answer every token 503 jwks_unavailable.
  const bare = parsed.username === '' && parsed.password === ''
  check.must(bare, 'jwks', 'a URL without user:password (a fetch cannot send them)', url)
  const options = {
    timeoutDuration: check.int('jwks_timeout_ms', o.jwks_timeout_ms ?? 2000, 1),
    cooldownDuration: check.int('jwks_cooldown_ms', o.jwks_cooldown_ms ?? 30_000, 0),
    cacheMaxAge: check.int('jwks_max_age_ms', o.jwks_max_age_ms ?? 600_000, 1),
  }
  // jose (ESM only) loads with the first token to check rather than with `import 'fw'`; one set for all requests.
  let set: Promise<{ remote: RemoteSet; local: typeof createLocalJWKSet }> | undefined
  // jose starts its cooldown only when a fetch succeeds: while the endpoint fails, every unknown kid would fetch again,
  // and with no usable set (none loaded yet, or the one held past jwks_max_age_ms) every token would. A failed fetch
  // starts a cooldown too; until it ends nothing is fetched: keys are looked up in the set held while it is fresh, and
  // without one the token is refused as a failed fetch refuses it. Requests during one fetch share it (jose's).
  let failed_at = -Infinity
  let held: LocalSet | undefined
  const pems = new WeakMap<object, JwksKey>()
  const pem_of = (key: Parameters<typeof KeyObject.from>[0]): JwksKey => {
    let entry = pems.get(key)
    if (entry === undefined) {
      entry = Object.freeze({ pem: KeyObject.from(key).export({ type: 'spki', format: 'pem' }) as string })
      pems.set(key, entry)
    }
    return entry
  }
  // The keys jose yields for a token without kid that several keys fit; more than the cap refuses it (401).
  const several = async (err: JWKSMultipleMatchingKeys): Promise<SeveralKeys | JWKSMultipleMatchingKeys> => {
    const keys: JwksKey[] = []
    for await (const key of err) {
      if (keys.length === MAX_KEYS_WITHOUT_KID) return err
      keys.push(pem_of(key))
    }
    return keys.length === 0 ? err : new SeveralKeys(keys)
  }
  // Rounded up as rate_limit's Retry-After is; no failed fetch yet (jose would not load) or no cooldown gives 1.
  const retry_after_s = (): number => Math.max(1, Math.ceil((failed_at + options.cooldownDuration - Date.now()) / 1000))
  const lookup: KeyConfig['key'] = async ({ header }) => {
    // Any error but JwksUnavailable answers 401 invalid_token.
    if (!algorithms.includes(header.alg as JwtAlgorithm)) throw new Error('Token algorithm not allowed')
    const wanted = { alg: header.alg ?? '', ...(header.kid !== undefined && { kid: header.kid }) }
    let key: Awaited<ReturnType<RemoteSet>>
    let jose: NonNullable<Awaited<typeof set>>
    try {
      set ??= import('jose').then((jose) => ({
        remote: jose.createRemoteJWKSet(parsed, options),
        local: jose.createLocalJWKSet,
      }))
      jose = await set
    } catch (err) {
      throw ERR_AUTH_JWKS_UNAVAILABLE(err instanceof Error ? err.message : String(err), { cause: err })
    }
    const cooling = Date.now() < failed_at + options.cooldownDuration
    // Outside the try below: a refusal during the cooldown must not restart it.
    if (cooling && (held === undefined || !jose.remote.fresh))
      throw ERR_AUTH_JWKS_UNAVAILABLE('a fetch failed, cooling down')
    try {
      key = await (cooling ? held! : jose.remote)(wanted)
    } catch (err) {
      const code = (err as { code?: unknown }).code
      if (code === 'ERR_JWKS_MULTIPLE_MATCHING_KEYS' && header.kid === undefined) {
        throw await several(err as JWKSMultipleMatchingKeys)
      }
      if (code === 'ERR_JWKS_NO_MATCHING_KEY' || code === 'ERR_JWKS_MULTIPLE_MATCHING_KEYS') throw err
      failed_at = Date.now()
      const jwks = jose.remote.jwks()
      if (jwks !== undefined) held = jose.local(jwks)
      throw ERR_AUTH_JWKS_UNAVAILABLE(err instanceof Error ? err.message : String(err), { cause: err })
    }
    return pem_of(key).pem
  }
  return { key: lookup, retry_after_s }
}

/**
 * Checks the key options and pins the algorithms to the key's family, so no token can pick HS256 against a public key.
 * `weak_from` names the development preset that may use an HMAC secret shorter than its hash (with a warning).
 */
export function key_config(o: JwtKeyOptions, weak_from?: string): KeyConfig {
  const given = (['secret', 'public_key', 'jwks'] as const).filter((k) => o[k] !== undefined)
  check.must(given.length === 1, 'secret, public_key and jwks', 'given one at a time (exactly one of them)', given)
  if (o.secret !== undefined) {
    const algorithms = pinned(o.algorithms ?? ['HS256'], HMAC)
    return { key: hmac_secret(o.secret, algorithms, weak_from), algorithms }
  }
  if (o.jwks !== undefined) {
    const algorithms = pinned(o.algorithms ?? ['RS256'], ASYMMETRIC)
    return { ...remote(o.jwks, o, algorithms), algorithms }
  }
  const key = public_pem(o.public_key)
  const fits = algorithms_of(key)
  const algorithms = pinned(o.algorithms ?? fits.slice(0, 1), fits)
  return { key: key.export({ type: 'spki', format: 'pem' }) as string, algorithms }
}
