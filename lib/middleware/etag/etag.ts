// ETags: a tag on each buffered GET answer, 304 for a matching If-None-Match, 412 for an unsafe method whose If-Match
// fails.
import { hash } from 'node:crypto'
import type { Middleware } from '../../compose.js'
import { tag_listed } from '../../http-token.js'
import type { Request } from '../../request.js'
import { CODE_PRECONDITION_FAILED } from '../../response.js'
import { option_checker } from '../../options.js'
import { ERR_SECURITY_BAD_OPTION } from '../security/errors.js'

const check = option_checker(ERR_SECURITY_BAD_OPTION, 'etag')

export { CODE_PRECONDITION_FAILED }

/** Options of `etag`. */
export interface EtagOptions {
  /** Write weak tags (`W/"..."`): equal meaning rather than equal bytes (default false: strong). */
  weak?: boolean
  /**
   * The current tag of the resource an unsafe request (POST, PUT, PATCH, DELETE) targets, for `If-Match`; undefined
   * when it does not exist. Without it `If-Match` is not checked.
   */
  current?: (req: Request) => string | undefined | Promise<string | undefined>
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE'])

/** A tag for `body`: its length and SHA-1, quoted (and weak when asked). */
export function etag_of(body: string | Buffer, weak = false): string {
  const digest = hash('sha1', body, 'base64url').slice(0, 27)
  const tag = `"${Buffer.byteLength(body).toString(16)}-${digest}"`
  return weak ? `W/${tag}` : tag
}

/**
 * Tags each 200 answer to GET or HEAD with a buffered body (unless it has an `ETag` already) and answers 304 without a
 * body when `If-None-Match` lists it; with `current`, an unsafe request whose `If-Match` does not list the resource's
 * tag gets 412 `precondition_failed` before its handler runs. Place it after `compression` in `use` order, so tags are
 * computed on the identity body.
 * @example
 * app.use(etag({ current: (req) => store.version_of(req.param('id')) }))
 */
export function etag({ weak = false, current }: EtagOptions = {}): Middleware {
  check.bool('weak', weak)
  if (current !== undefined) check.fn('current', current)
  return async function etag(req, res, next) {
    const method = req.method()
    const if_match = req.header('if-match')
    if (current !== undefined && !SAFE.has(method) && if_match !== '') {
      const tag = await current(req)
      // RFC 9110 13.1.1: `*` needs the resource to exist; a listed tag must match strongly.
      if (tag === undefined || !tag_listed(if_match, tag, true))
        return void res.error(412, CODE_PRECONDITION_FAILED, 'Precondition failed')
    }
    await next()
    if ((method !== 'GET' && method !== 'HEAD') || res.status_code !== 200) return
    if (res.kind === 'none' || res.kind === 'file' || res.payload === undefined) return
    const tag = res.get_header('etag') ?? etag_of(res.payload, weak)
    res.header('ETag', tag)
    const none_match = req.header('if-none-match')
    if (none_match !== '' && tag_listed(none_match, tag, false)) {
      // No body at all rather than an empty one: an empty body would go out with `Content-Length: 0`, which a 304 must
      // not claim (RFC 9110 8.6); the headers (ETag, Cache-Control, Vary) are kept. A Content-Length the handler set goes
      // too: it counts the identity body, and the 200 this 304 stands for may have been compressed to fewer bytes.
      res.discard_body().status(304).remove_header('content-length')
    }
  }
}
