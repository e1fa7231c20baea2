// Every conduit error answer in one place: the RealWorld shape {"errors":{"body":[...]}} for refusals, validation
// failures, taken names and an unavailable database, given by the /api group's on_error.
import { HttpError, type Request, type Response } from '../../index.js'
import { httpCode } from '../../lib/errors.js'
import { define_bad_option } from '../../lib/options.js'
import { ValidationFailed } from '../../lib/validation/index.js'
import { code_of, unique_violation } from '../storage/sql-errors.js'

export { unique_violation } from '../storage/sql-errors.js'

/** A conduit option (or `DATABASE_URL`, `--database`) the demo cannot work with. */
export const ERR_CONDUIT_BAD_OPTION = define_bad_option('CONDUIT')

/** 503 code beside the RealWorld body: the database did not answer (down, restarting, locked); retry shortly. */
export const DATABASE_UNAVAILABLE = httpCode('database_unavailable')

/** A refusal a handler throws: its status and the messages of the RealWorld body. */
export class ConduitError extends Error {
  constructor(
    readonly status: number,
    readonly messages: readonly string[],
    readonly code?: string,
  ) {
    super(messages.join('; '))
  }
}

/** 401: no token where one is needed, or one that is forged, expired or names no user. */
export const unauthorized = (): ConduitError => new ConduitError(401, ['unauthorized'])
/** 403: the article or comment belongs to someone else. */
export const forbidden = (what: string): ConduitError =>
  new ConduitError(403, [`only the author may change this ${what}`])
/** 404: no such article, profile or comment. */
export const not_found = (what: string): ConduitError => new ConduitError(404, [`${what} not found`])
/** 422 with the given messages. */
export const unprocessable = (...messages: string[]): ConduitError => new ConduitError(422, messages)

/**
 * Whether `err` is a foreign key violation: a row written for an article (a favourite, a comment) that another request
 * deleted between the lookup and the insert.
 */
export function foreign_key_violation(err: unknown): boolean {
  const code = code_of(err)
  if (code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return true
  return code === 'SQLITE_CONSTRAINT' && err instanceof Error && /FOREIGN KEY constraint failed/.test(err.message)
}

const UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up)
  '53300', // too_many_connections
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_IOERR',
  'SQLITE_CANTOPEN',
  'SQLITE_FULL',
])

/** Whether the database (not the request) failed: refused or dropped connections, a server shutting down, a lock. */
export function is_unavailable(err: unknown): boolean {
  const code = code_of(err)
  if (UNAVAILABLE.has(code) || code.startsWith('08') || code.startsWith('SQLITE_IOERR')) return true
  const message = err instanceof Error ? err.message : ''
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    message,
  )
}

function answer(res: Response, status: number, messages: readonly string[], code?: string): void {
  res.status(status).json(code === undefined ? { errors: { body: messages } } : { errors: { body: messages }, code })
}

/**
 * The conduit's error mapping, the `on_error` of its `/api` group: a `ConduitError` answers its status; a failed route
 * schema (`ValidationFailed`) 422 with one message per failing field; a unique violation 422 `<field> has already been
 * taken`; a database that does not answer 503 `database_unavailable` with `Retry-After: 1`; an unknown route under
 * `/api` 404 `route not found`. Anything else is left to fw (500 `internal_error`, logged).
 */
export function realworld_errors(err: unknown, _req: Request, res: Response): void {
  if (err instanceof ConduitError) {
    if (err.status === 401) res.header('WWW-Authenticate', 'Token')
    return answer(res, err.status, err.messages, err.code)
  }
  if (err instanceof ValidationFailed)
    return answer(
      res,
      422,
      err.errors.map((e) => e.message),
    )
  if (err instanceof HttpError && err.status === 404) return answer(res, 404, ['route not found'])
  const taken = unique_violation(err)
  if (taken !== undefined) return answer(res, 422, [`${taken} has already been taken`])
  if (is_unavailable(err)) {
    res.header('Retry-After', '1')
    return answer(res, 503, ['the database is unavailable; try again shortly'], DATABASE_UNAVAILABLE)
  }
}
