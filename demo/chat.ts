// Demo `chat`: rooms over WebSockets. `/ws/chat/{room}` takes anyone (the session's name, a bearer token's subject, or
// guest-<n>) and broadcasts each text message to the room; `/ws/private/{room}` is the same behind a required JWT.
import { readFileSync } from 'node:fs'
import { adapt_ctx, compose, json, type App, type Middleware, type Request, type Router } from '../index.js'
import { jwt_dev } from '../lib/middleware/app/index.js'
import { JwtClaims, Session, session } from '../lib/middleware/auth/index.js'
import { security_headers } from '../lib/middleware/security/index.js'
import type { WebSocketConnection } from '../lib/websocket/index.js'
import { httpCode } from '../lib/errors.js'
import { field, schema } from '../lib/validation/index.js'
import { dev_secret, type Demo } from './demo.js'
import { DEV_JWT_SECRET } from './jwt.js'
import { csp_hash } from './showcase-page.js'

const dir = new URL('./chat-page/', import.meta.url)
const SCRIPT = readFileSync(new URL('page.js', dir), 'utf8')
const STYLE = readFileSync(new URL('page.css', dir), 'utf8')
const HTML = readFileSync(new URL('index.html', dir), 'utf8').replace(/\{\{(script|style)\}\}/g, (_m, k: string) =>
  k === 'script' ? SCRIPT : STYLE,
)
/** The page's policy: its inline blocks by hash; `connect-src 'self'` covers its own ws:// origin. */
const CSP =
  `default-src 'none'; script-src ${csp_hash(SCRIPT)}; style-src ${csp_hash(STYLE)}; img-src data:; connect-src 'self'; ` +
  "form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

const NAME = /^[A-Za-z0-9_-]{1,24}$/
/** The names the room itself speaks as: `server` (welcome lines) and `guest-<n>` (whoever has no name). */
const RESERVED_NAME = /^(server|guest-\d+)$/i
const CODE_INVALID_NAME = httpCode('invalid_name')
/** The longest message text, in code points (characters as a person counts them, an emoji being one). */
const MAX_TEXT = 1000

/**
 * `text` cut to its first `max` code points, never between the two halves of a surrogate pair (an emoji), which would
 * leave a lone surrogate. A text of `max` UTF-16 units or fewer is returned as is, with no scan.
 */
function cut_text(text: string, max: number): string {
  if (text.length <= max) return text
  // A string iterates by code points, as `code_point_length` counts them: a pair is one step of two units.
  let end = 0
  let n = 0
  for (const ch of text) {
    if (n++ === max) break
    end += ch.length
  }
  return text.slice(0, end)
}

/** Options of `setup_chat`. */
export interface ChatOptions {
  /** Signs the chat's session cookie (default `FW_SESSION_SECRET`, else a development secret). */
  session_secret?: string
  /** Verifies bearer tokens (default `FW_JWT_SECRET`, else the jwt demo's development secret). */
  jwt_secret?: string
}

/** POST /chat/name documents its body; the handler answers 400 invalid_name itself, so the schema only documents. */
const NAME_DOC = {
  summary: "Set the session's display name",
  body: schema({
    name: field.string().required().describe('1-24 letters, digits, _ or -; not server or guest-<n>'),
  }),
  validate: false,
  responses: { 200: { description: 'The name now in force' }, 400: { description: 'invalid_name' } },
} as const

/**
 * Registers the chat page `GET /chat`, `POST /chat/name` (the session's display name), and the WebSocket routes
 * `/ws/chat/{room}` (anyone) and `/ws/private/{room}` (bearer JWT required).
 * @example
 * setup_chat(app, app, { session_secret: process.env.FW_SESSION_SECRET })
 */
export function setup_chat(app: App, r: Router, options: ChatOptions = {}): void {
  const sessions = adapt_ctx(
    session({
      secret:
        options.session_secret ?? dev_secret('FW_SESSION_SECRET', 'dev-session-secret-change-me-before-deploying'),
      cookie_name: 'chat_sid',
    }),
  )
  const bearer = jwt_dev(options.jwt_secret ?? dev_secret('FW_JWT_SECRET', DEV_JWT_SECRET))
  // A bearer token is checked when one is sent (a bad one is refused with 401); without one the client is a guest.
  const optional_bearer: Middleware = (req, res, next) =>
    req.header('authorization') === '' ? next() : bearer(req, res, next)
  // A token's subject is a name as one set with POST /chat/name is: the room's own names are refused the same way,
  // before any socket exists, or a token for `server` would post as the server.
  const own_subject: Middleware = (req, res, next) => {
    const subject = req.state(JwtClaims)?.subject
    if (subject && RESERVED_NAME.test(subject)) return void res.error(400, CODE_INVALID_NAME, 'name is reserved')
    return next()
  }
  r.use('/chat', sessions)
  r.use('/ws/chat', sessions)
  r.use('/ws/chat', optional_bearer)
  r.use('/ws/chat', own_subject)
  r.use('/ws/private', bearer)
  r.use('/ws/private', own_subject)
  const page = adapt_ctx(security_headers({ csp: CSP }))
  r.get(
    '/chat',
    compose([page], (_req, res) => res.header('Content-Type', 'text/html; charset=utf-8').send(HTML)),
  )
  r.post('/chat/name', NAME_DOC, (req, res) => {
    const name = req.json().value('name', '').trim()
    if (!NAME.test(name)) return void res.error(400, CODE_INVALID_NAME, 'name must be 1-24 letters, digits, _ or -')
    if (RESERVED_NAME.test(name)) return void res.error(400, CODE_INVALID_NAME, 'name is reserved')
    req.state(Session)!.set('user', name)
    res.json('ok', true, 'name', name)
  })
  let guests = 0
  const room_chat = (ws: WebSocketConnection, req: Request): void => {
    const room = req.param('room')
    const from = req.state(JwtClaims)?.subject || req.state(Session)?.get('user') || `guest-${++guests}`
    ws.join(room)
    ws.send(json.o('room', room, 'from', 'server', 'text', `welcome, ${from}`, 'at', new Date().toISOString()))
    ws.on_message((m) => {
      if (typeof m !== 'string' || m.trim() === '') return
      const text = cut_text(m, MAX_TEXT)
      app.rooms.broadcast(room, json.o('room', room, 'from', from, 'text', text, 'at', new Date().toISOString()))
    })
  }
  // The routes trust the session cookie, which a browser sends from any page: an upgrade whose Origin is another site
  // gets 403 before any socket exists (fw's default, so no `origins` here; a page served from another origin of
  // yours would be listed in `origins`).
  const limits = { max_payload: 4096, rate_limit: { max_messages: 20, window_ms: 10_000 }, idle_timeout_ms: 600_000 }
  r.ws('/ws/chat/{room}', room_chat, limits)
  r.ws('/ws/private/{room}', room_chat, limits)
}

export const demo: Demo = {
  name: 'chat',
  description: 'GET /chat: rooms over WebSockets (/ws/chat/{room}, /ws/private/{room} with a JWT)',
  setup(app, r) {
    setup_chat(app, r)
  },
}
