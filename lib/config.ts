// Runtime configuration: App options, overridden by FW_* environment variables, with the defaults in one place.
import { resolve_form_limits, type FormLimits, type ResolvedFormLimits } from './body/limits.js'
import { defineError } from './errors.js'
import type { LogConfig } from './log/core.js'
import { known_level, type LogLevel } from './log/levels.js'
import { parse_range } from './ip-address.js'
import { MAX_TIMER_MS, quote } from './options.js'

export const ERR_CONFIG_BAD_VALUE = defineError(
  'FW_ERR_CONFIG_BAD_VALUE',
  (name: string, value: unknown, expected: string) => `${name} must be ${expected}; got ${quote(value)}`,
)

/** App options. Each may be overridden by its `FW_*` environment variable. */
export interface AppOptions {
  /** Port for `run()` (FW_PORT; default 8080). */
  port?: number
  /** Address to listen on (FW_HOST; default 127.0.0.1). Use 0.0.0.0 in a container. */
  host?: string
  /** Addresses or CIDRs of your own proxies (FW_TRUST_PROXY, comma-separated); only their forwarded headers count. */
  trust_proxy?: string[] | boolean
  /** Largest request body in bytes (FW_BODY_LIMIT; default 1 MiB). */
  body_limit?: number
  /**
   * How long `close()` waits for in-flight requests before it cuts connections (FW_CLOSE_TIMEOUT_MS; default 10000).
   */
  close_timeout_ms?: number
  /**
   * How long `close()` keeps serving with readiness (`app.health()`) answering 503 `draining` before it stops accepting
   * connections, so a load balancer or Kubernetes takes the instance out of rotation first (FW_DRAIN_MS; default 0).
   */
  drain_ms?: number
  /**
   * Echo `x-request-id`: the well-formed incoming one or a new UUID (default true). With false nothing is echoed, and
   * requests without one are numbered `req-1`, `req-2`... for the log.
   */
  request_id?: boolean
  /**
   * Level of the per-request access line, or false for none (FW_ACCESS_LOG: a level name, or `false`/`off`; default
   * 'info').
   */
  access_log?: LogLevel | false
  /** Limits of `req.form()` and `req.multipart()` (fields, field_size, files, file_size); a call may override them. */
  form_limits?: FormLimits
  /**
   * Logging of this App's own lines (its requests' lines and its listening line), as `configure` takes it: format,
   * async, destination and `pino` options (`redact`, `serializers`, `mixin`, `transport`...); what it leaves out follows
   * the process-wide configuration. The level alone is process-wide: a `level` here sets the process's level when the
   * App is built, so the last App built with one wins (see docs/log.md).
   */
  logger?: Partial<LogConfig>
  /** Serve HTTPS with this key and certificate (PEM); `App.reload_tls` swaps them without a restart. */
  https?: TlsOptions
  /**
   * Serve HTTP/2 (over TLS when `https` is set, with ALPN falling back to HTTP/1.1 for older clients; without `https`,
   * cleartext HTTP/2 with prior knowledge, h2c, which HTTP/1.1 clients cannot speak). Default false.
   */
  http2?: boolean
  /**
   * How long an idle keep-alive connection stays open, in ms (FW_KEEP_ALIVE_TIMEOUT_MS; default 72000, above common
   * load balancers' 60 s).
   */
  keep_alive_timeout_ms?: number
  /** Longest time to receive a whole request, in ms; 0 for none (FW_REQUEST_TIMEOUT_MS; default 300000). */
  request_timeout_ms?: number
  /** Longest time to receive a request's headers, in ms (FW_HEADERS_TIMEOUT_MS; default 60000). */
  headers_timeout_ms?: number
  /** Most connections open at once; further ones are refused; 0 for no limit (FW_MAX_CONNECTIONS; default 0). */
  max_connections?: number
  /**
   * Query parameters the access line hides besides `SECRET_QUERY`'s and those `api_key`/`jwt` middleware read.
   */
  secret_query_params?: readonly string[]
  /**
   * Check every answer whose status has a body schema in its route's `responses` before it is sent: one that
   * contradicts it answers 500 `response_invalid` and logs one line naming the route, the status and the field. Default:
   * true when `NODE_ENV` is `test` or `development`, false otherwise (production, unset). See docs/validation.md.
   */
  check_responses?: boolean
}

/** A TLS key and certificate, PEM text or buffers. */
export interface TlsOptions {
  key: string | Buffer
  cert: string | Buffer
}

/** Options after defaults and environment are applied. */
export interface AppConfig {
  readonly port: number
  readonly host: string
  readonly trust_proxy: string[] | boolean
  readonly body_limit: number
  readonly close_timeout_ms: number
  readonly drain_ms: number
  readonly request_id: boolean
  readonly access_log: LogLevel | false
  readonly form_limits: ResolvedFormLimits
  readonly https: TlsOptions | undefined
  readonly http2: boolean
  readonly keep_alive_timeout_ms: number
  readonly request_timeout_ms: number
  readonly headers_timeout_ms: number
  readonly max_connections: number
  readonly check_responses: boolean
}

/** An environment variable's text without surrounding spaces; `undefined` when it is unset, empty or blank. */
function env_text(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const text = env[name]?.trim()
  return text === '' ? undefined : text
}

/** Decimal digits, with an optional minus so that `-1` is refused as out of range rather than as garbage. */
const DECIMAL = /^-?[0-9]+$/

function int_env(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max?: number): number {
  const text = env_text(env, name)
  if (text === undefined) return check_int(name, fallback, min, max)
  // Number() alone reads '0x50' as 80, '1e3' as 1000 and ' ' as 0: only decimal digits are an integer here.
  return check_int(name, DECIMAL.test(text) ? Number(text) : NaN, min, max, env[name])
}

function check_int(name: string, n: number, min: number, max: number | undefined, raw: unknown = n): number {
  const expected = max === undefined ? `an integer >= ${min}` : `an integer from ${min} to ${max}`
  // A safe integer: past 2^53 the digits are not read exactly (99999999999999999999 became 1e20).
  if (!Number.isSafeInteger(n) || n < min || (max !== undefined && n > max))
    throw ERR_CONFIG_BAD_VALUE(name, raw, expected)
  return n
}

/** The highest TCP port: the bound of the `port` option and of the port given to `listen` or `run`. */
const MAX_PORT = 65535

/** A port given to `listen` or `run`, checked as the `port` option is (`FW_ERR_CONFIG_BAD_VALUE`). */
export function check_port(port: number): number {
  return check_int('port', port, 0, MAX_PORT)
}

function trust_env(raw: string | undefined, fallback: string[] | boolean): string[] | boolean {
  if (raw === undefined || raw.trim() === '') return check_trust(fallback, fallback)
  // Trimmed as every other variable is: `FW_TRUST_PROXY= true` from a .env file means true.
  const word = raw.trim()
  if (word === 'true') return true
  if (word === 'false') return false
  return check_trust(
    raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    raw,
  )
}

/** The names of address ranges Fastify's `trustProxy` (proxy-addr) knows besides addresses and CIDRs. */
const TRUST_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

/**
 * A list of proxies must be addresses, CIDRs or proxy-addr's names (loopback, linklocal, uniquelocal), each read alike
 * by fw (X-Real-IP) and by Fastify's proxy-addr. proxy-addr refuses a range of length 0 (`0.0.0.0/0`, `::/0`): accepted
 * here, it made Fastify throw a TypeError when the server was built, at `listen`; `true` trusts every peer.
 */
function check_trust(list: string[] | boolean, raw: unknown): string[] | boolean {
  if (typeof list === 'boolean') return list
  const known = (p: unknown): boolean =>
    typeof p === 'string' && (TRUST_NAMES.has(p) || (parse_range(p) !== undefined && !/\/0+$/.test(p)))
  if (!Array.isArray(list) || !list.every(known)) {
    throw ERR_CONFIG_BAD_VALUE('FW_TRUST_PROXY', raw, 'true, false, or IP addresses and CIDRs separated by commas')
  }
  return list
}

/** The access line's level: a level name (`warning`, `fatal` and the other aliases too), or false/`off` for none. */
function access_level(raw: string | false | undefined): LogLevel | false {
  if (raw === undefined) return 'info'
  if (raw === false || raw === 'false') return false
  const level = known_level(raw)
  if (level === undefined)
    throw ERR_CONFIG_BAD_VALUE('FW_ACCESS_LOG', raw, 'a log level (trace, debug, info, warn, error, critical) or false')
  return level === 'off' ? false : level
}

/** TLS material must be PEM text or buffers; the message never quotes the key. */
export function check_tls(tls: TlsOptions | undefined): TlsOptions | undefined {
  if (tls === undefined) return undefined
  const pem = (v: unknown): boolean => (typeof v === 'string' && v.includes('-----BEGIN')) || Buffer.isBuffer(v)
  if (typeof tls !== 'object' || tls === null || !pem(tls.key) || !pem(tls.cert))
    throw ERR_CONFIG_BAD_VALUE('https', '[key and cert]', 'an object with PEM key and cert')
  return tls
}

/** The `secret_query_params` option: a list of non-empty strings, or `FW_ERR_CONFIG_BAD_VALUE`. */
export function secret_query_params({ secret_query_params: value = [] }: AppOptions): readonly string[] {
  const ok = Array.isArray(value) && value.every((n) => typeof n === 'string' && n !== '')
  if (!ok) throw ERR_CONFIG_BAD_VALUE('secret_query_params', value, 'a list of non-empty strings')
  return value
}

/** A boolean option (`request_id`, `http2`, `check_responses`): true, false, or left out for `fallback`. */
function bool_option(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback
  if (typeof value !== 'boolean') throw ERR_CONFIG_BAD_VALUE(name, value, 'true or false')
  return value
}

/** The address to listen on: FW_HOST, else the `host` option (a non-empty string), else 127.0.0.1. */
function host_of(env: NodeJS.ProcessEnv, option: unknown): string {
  const text = env_text(env, 'FW_HOST')
  if (text !== undefined) return text
  if (option === undefined || option === '') return '127.0.0.1'
  if (typeof option !== 'string') throw ERR_CONFIG_BAD_VALUE('FW_HOST', option, 'a host name or address')
  return option
}

/** The shortest interval between two checks of the request timeouts (see `connections_check_ms`). */
const MIN_CONNECTIONS_CHECK_MS = 50

/**
 * How often Node's HTTP server checks `headers_timeout_ms` and `request_timeout_ms` (its `connectionsCheckingInterval`,
 * 30 s by default, so a 2 s timeout acted after up to 30 s): a tenth of the smaller timeout, at most 1 s, so each acts
 * within its value plus 1 s (and within 10% of a short one), and at least 50 ms: each check walks every open
 * connection, and `headers_timeout_ms: 5` had it do so every millisecond. A timeout under 500 ms acts within its value
 * plus 50 ms.
 */
export function connections_check_ms(config: Pick<AppConfig, 'headers_timeout_ms' | 'request_timeout_ms'>): number {
  const set = [config.headers_timeout_ms, config.request_timeout_ms].filter((ms) => ms > 0)
  if (set.length === 0) return 1000
  return Math.min(1000, Math.max(MIN_CONNECTIONS_CHECK_MS, Math.ceil(Math.min(...set) / 10)))
}

/** Applies environment and defaults to options; a bad value throws `FW_ERR_CONFIG_BAD_VALUE` at startup. */
export function resolve_config(options: AppOptions = {}, env: NodeJS.ProcessEnv = process.env): AppConfig {
  const access = env_text(env, 'FW_ACCESS_LOG') ?? options.access_log
  return {
    port: int_env(env, 'FW_PORT', options.port ?? 8080, 0, MAX_PORT),
    host: host_of(env, options.host),
    trust_proxy: trust_env(env.FW_TRUST_PROXY, options.trust_proxy ?? false),
    body_limit: int_env(env, 'FW_BODY_LIMIT', options.body_limit ?? 1024 * 1024, 0),
    // Timers: a `close_timeout_ms` past MAX_TIMER_MS cut every in-flight request the moment `close()` began, and such a
    // `drain_ms` drained nothing. (Node's server timeouts are not timers of this kind: a socket's is capped, the others
    // are polled.)
    close_timeout_ms: int_env(env, 'FW_CLOSE_TIMEOUT_MS', options.close_timeout_ms ?? 10_000, 0, MAX_TIMER_MS),
    drain_ms: int_env(env, 'FW_DRAIN_MS', options.drain_ms ?? 0, 0, MAX_TIMER_MS),
    request_id: bool_option('request_id', options.request_id, true),
    access_log: access_level(access),
    form_limits: resolve_form_limits(options.form_limits),
    https: check_tls(options.https),
    http2: bool_option('http2', options.http2, false),
    keep_alive_timeout_ms: int_env(env, 'FW_KEEP_ALIVE_TIMEOUT_MS', options.keep_alive_timeout_ms ?? 72_000, 0),
    request_timeout_ms: int_env(env, 'FW_REQUEST_TIMEOUT_MS', options.request_timeout_ms ?? 300_000, 0),
    headers_timeout_ms: int_env(env, 'FW_HEADERS_TIMEOUT_MS', options.headers_timeout_ms ?? 60_000, 0),
    max_connections: int_env(env, 'FW_MAX_CONNECTIONS', options.max_connections ?? 0, 0),
    check_responses: bool_option(
      'check_responses',
      options.check_responses,
      env.NODE_ENV === 'test' || env.NODE_ENV === 'development',
    ),
  }
}
