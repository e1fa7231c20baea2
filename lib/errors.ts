// One registry of coded errors: every error fw throws at startup or from its APIs is made here.

/** An error thrown by fw, with a stable `code` of the form `FW_ERR_<AREA>_<PROBLEM>`. */
export class FwError extends Error {
  readonly code: string
  /** Optional HTTP status when the error surfaces in a response. */
  readonly status: number

  constructor(code: string, message: string, status = 500, options?: ErrorOptions) {
    super(message, options)
    this.name = 'FwError'
    this.code = code
    this.status = status
  }
}

/**
 * A store (sessions, rate-limit counters, cache entries, a JWKS key set) cannot answer now, and a retry later may
 * succeed: the one "unavailable" error of every store interface. Status 503. The middleware that uses the store answers
 * 503 with its own code (`session_store_unavailable`, `rate_limit_unavailable`, `jwks_unavailable`) or does without it
 * (`http_cache` bypasses); one that reaches the App from a handler answers 503 `store_unavailable`. A custom store
 * throws it (or rejects with it) when its backend is down or slow.
 * @example
 * throw new StoreUnavailable('SqlSessionStore.load: database unreachable', { cause: err })
 */
export class StoreUnavailable extends FwError {
  constructor(message: string, options?: ErrorOptions, code = 'FW_ERR_STORE_UNAVAILABLE') {
    // Named FwError still: code that logs or matches `name` sees it as before; `instanceof` tells the kind.
    super(code, message, 503, options)
  }
}

/** Makes the error of one code: an `FwError` by default, or one of its kinds (`StoreUnavailable`). */
export type MakeError = (code: string, message: string, status: number, options: ErrorOptions | undefined) => FwError

const make_fw_error: MakeError = (code, message, status, options) => new FwError(code, message, status, options)

/** Makes `StoreUnavailable` errors under a code of their own (`FW_ERR_REDIS_UNAVAILABLE`), for `defineError`. */
export const store_unavailable: MakeError = (code, message, _status, options) =>
  new StoreUnavailable(message, options, code)

/** A factory for one error code; call it with the message arguments. */
export interface ErrorFactory<A extends unknown[]> {
  (...args: [...A, ErrorOptions?]): FwError
  readonly code: string
}

const registry = new Map<string, string>()

/**
 * Declares an error code once, with a message template built from its arguments. The registry feeds the test that keeps
 * `docs/errors.md` exact.
 * @example
 * export const ERR_CACHE_BAD_TTL = defineError(
 *   'FW_ERR_CACHE_BAD_TTL',
 *   (ttl: number) => `ttl_ms must be >= 0, got ${ttl}`,
 * )
 */
export function defineError<A extends unknown[]>(
  code: string,
  message: (...args: A) => string,
  status = 500,
  make: MakeError = make_fw_error,
): ErrorFactory<A> {
  if (!/^FW_ERR_[A-Z0-9]+_[A-Z0-9_]+$/.test(code)) throw new TypeError(`bad error code ${JSON.stringify(code)}`)
  if (registry.has(code)) throw new TypeError(`error code ${code} is declared twice`)
  registry.set(code, message.toString())
  const factory = (...args: [...A, ErrorOptions?]): FwError => {
    const last = args[args.length - 1]
    const hasOptions = args.length > message.length && typeof last === 'object' && last !== null
    const options = hasOptions ? (last as ErrorOptions) : undefined
    const margs = (hasOptions ? args.slice(0, -1) : args) as unknown as A
    return make(code, message(...margs), status, options)
  }
  return Object.assign(factory, { code }) as ErrorFactory<A>
}

/** A store that cannot answer now; see `StoreUnavailable`. */
export const ERR_STORE_UNAVAILABLE = defineError(
  'FW_ERR_STORE_UNAVAILABLE',
  (store: string, operation: string, reason: string) => `${store}.${operation}: the store is unavailable (${reason})`,
  503,
  store_unavailable,
)

/** Every error code declared so far (modules declare theirs when loaded). */
export function errorCodes(): string[] {
  return [...registry.keys()].sort()
}

/**
 * The HTTP error codes fw answers with in `{ok:false, error, message}` bodies, by area; `docs/errors.md` lists them
 * all.
 */
const httpCodes = new Set<string>()

/** Records an HTTP error code that a module answers with, so the docs test can check it is documented. */
export function httpCode<C extends string>(code: C): C {
  httpCodes.add(code)
  return code
}

/** Every HTTP error code recorded so far. */
export function httpErrorCodes(): string[] {
  return [...httpCodes].sort()
}
