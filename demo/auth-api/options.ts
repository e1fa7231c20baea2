// The options of the reference authentication API, the environment variables that fill them in, and their checks.
import type { RateLimitStore } from '../../lib/middleware/security/index.js'
import { normalise_email } from './bodies.js'
import { ERR_AUTHAPI_BAD_OPTION } from './errors.js'
import type { PasswordHasher, ScryptCost } from './passwords.js'
import type { TokenStore } from './token-store.js'
import type { Users } from './user-store.js'

/** `demo`: the spec's demonstration (plain passwords, `dev-token-<id>`); `production`: its production requirements. */
export type AuthMode = 'demo' | 'production'

/** The modes, for option checks. */
export const AUTH_MODES: readonly AuthMode[] = ['demo', 'production']

/** A limit on login or registration attempts: `max_requests` per `window_seconds`. */
export interface LoginLimit {
  readonly max_requests: number
  readonly window_seconds: number
}

/** Options of `auth_api`. An option given wins over its environment variable; the variable wins over the default. */
export interface AuthApiOptions {
  /** `demo` or `production` (env `FW_AUTH_MODE`; default `demo`). */
  mode?: AuthMode
  /**
   * Emails that register with role `admin`, compared trimmed and lowercased (env `FW_AUTH_ADMINS`, comma-separated;
   * default none).
   */
  admins?: readonly string[]
  /** Production: seconds a token lives after login (env `FW_AUTH_TOKEN_TTL`; default 3600). */
  ttl?: number
  /** Production: login attempts allowed per email (default 5 per 60 s). */
  login_limit_per_email?: LoginLimit
  /** Production: login attempts allowed per client address (default 20 per 60 s). */
  login_limit_per_ip?: LoginLimit
  /** Production: registrations allowed per client address, valid or not (default 10 per 3600 s). */
  register_limit_per_ip?: LoginLimit
  /** Production: where login and registration attempts are counted (default a new `MemoryRateLimitStore` each). */
  rate_limit_store?: RateLimitStore
  /** Production: scrypt's cost parameters (default N 16384, r 8, p 1). */
  scrypt?: ScryptCost
  /** Production: how passwords are kept and checked (default `ScryptPasswords` with `scrypt`). */
  passwords?: PasswordHasher
  /** Where users are kept (default a new in-memory `UserStore`; `open_auth_storage()` gives a database's). */
  users?: Users
  /**
   * Where tokens are kept (default in memory: `DevTokens` in demonstration mode, `RandomTokens` with `ttl` in
   * production; `open_auth_storage()` gives a database's).
   */
  tokens?: TokenStore
  /** The clock in ms for token expiry and the login and registration limits (default `Date.now`); tests pass a fake. */
  now?: () => number
  /** Receives one line per registration and login, success or refusal; lines never hold a password or a token. */
  log?: (line: string) => void
  /** Where `FW_AUTH_*` are read (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>
}

/** The options with every default applied and checked. */
export interface AuthApiConfig {
  readonly mode: AuthMode
  readonly admins: ReadonlySet<string>
  readonly ttl: number
  readonly login_limit_per_email: LoginLimit
  readonly login_limit_per_ip: LoginLimit
  readonly register_limit_per_ip: LoginLimit
  readonly rate_limit_store: RateLimitStore | undefined
  readonly scrypt: ScryptCost
  readonly passwords: PasswordHasher | undefined
  readonly users: Users | undefined
  readonly tokens: TokenStore | undefined
  readonly now: () => number
  readonly log: (line: string) => void
}

function env_mode(value: string | undefined): AuthMode | undefined {
  if (value === undefined || value === '') return undefined
  if (!(AUTH_MODES as readonly string[]).includes(value))
    throw ERR_AUTHAPI_BAD_OPTION('FW_AUTH_MODE', '"demo" or "production"', value)
  return value as AuthMode
}

function env_ttl(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined
  if (!/^[0-9]+$/.test(value)) throw ERR_AUTHAPI_BAD_OPTION('FW_AUTH_TOKEN_TTL', 'a whole number of seconds', value)
  return Number(value)
}

function env_admins(value: string | undefined): string[] | undefined {
  return value === undefined || value === '' ? undefined : value.split(',').filter((s) => s.trim() !== '')
}

/**
 * Applies the environment and the defaults, and checks every value, so a misconfiguration fails at startup.
 * @example
 * const config = auth_api_config({ mode: 'production', ttl: 900 })
 */
export function auth_api_config(o: AuthApiOptions = {}): AuthApiConfig {
  const env = o.env ?? process.env
  const mode = o.mode ?? env_mode(env.FW_AUTH_MODE) ?? 'demo'
  if (!AUTH_MODES.includes(mode)) throw ERR_AUTHAPI_BAD_OPTION('mode', '"demo" or "production"', mode)
  const ttl = o.ttl ?? env_ttl(env.FW_AUTH_TOKEN_TTL) ?? 3600
  if (!Number.isInteger(ttl) || ttl < 1) throw ERR_AUTHAPI_BAD_OPTION('ttl', 'a whole number of seconds >= 1', ttl)
  const admins = o.admins ?? env_admins(env.FW_AUTH_ADMINS) ?? []
  if (!Array.isArray(admins) || !admins.every((a) => typeof a === 'string')) {
    throw ERR_AUTHAPI_BAD_OPTION('admins', 'a list of emails', admins)
  }
  for (const name of ['now', 'log'] as const) {
    if (o[name] !== undefined && typeof o[name] !== 'function')
      throw ERR_AUTHAPI_BAD_OPTION(name, 'a function', o[name])
  }
  const p = o.passwords as Partial<PasswordHasher> | undefined
  if (p !== undefined && (typeof p?.hash !== 'function' || typeof p.verify !== 'function')) {
    throw ERR_AUTHAPI_BAD_OPTION('passwords', 'a PasswordHasher (hash and verify functions)', p, true)
  }
  const methods = { users: ['reserve', 'release', 'create', 'by_email', 'by_id', 'list'], tokens: ['issue', 'user_id'] }
  for (const [name, needed] of Object.entries(methods) as Array<['users' | 'tokens', string[]]>) {
    const store = o[name] as Record<string, unknown> | undefined
    if (store !== undefined && !needed.every((m) => typeof store?.[m] === 'function'))
      throw ERR_AUTHAPI_BAD_OPTION(name, `a store with ${needed.join(', ')}`, store, true)
  }
  return {
    mode,
    admins: new Set(admins.map(normalise_email)),
    ttl,
    login_limit_per_email: o.login_limit_per_email ?? { max_requests: 5, window_seconds: 60 },
    login_limit_per_ip: o.login_limit_per_ip ?? { max_requests: 20, window_seconds: 60 },
    register_limit_per_ip: o.register_limit_per_ip ?? { max_requests: 10, window_seconds: 3600 },
    rate_limit_store: o.rate_limit_store,
    scrypt: o.scrypt ?? {},
    passwords: o.passwords,
    users: o.users,
    tokens: o.tokens,
    now: o.now ?? Date.now,
    log: o.log ?? (() => {}),
  }
}
