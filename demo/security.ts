// Demo `security`: the spec's security-middleware stacks. `/api` runs the security headers, CORS and rate limit
// presets; the browser page (`GET /`, `POST /form`) runs security headers with a CSP, CSRF and a session.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { CODE_NOT_FOUND } from '../lib/app.js'
import { adapt_ctx, compose, type Handler, type Middleware, type Router } from '../index.js'
import { Session, session } from '../lib/middleware/auth/index.js'
import { cors_dev, csrf_dev, DEV_ORIGIN, rate_limit_dev, security_headers_dev } from '../lib/middleware/app/index.js'
import { CsrfToken, security_headers } from '../lib/middleware/security/index.js'
import { field, schema } from '../lib/validation/index.js'
import { dev_secret, type Demo } from './demo.js'

const PAGE_DIR = fileURLToPath(new URL('./security-page/', import.meta.url))
const PAGE = readFileSync(PAGE_DIR + 'index.html', 'utf8')
const ASSETS = new Set(['app.js', 'style.css'])

/**
 * The page's Content-Security-Policy: its own script and styles only; `fetch` may reach local API origins, where CORS
 * decides.
 */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self' http://localhost:* " +
  "http://127.0.0.1:*; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

/** Options of `setup_security`. */
export interface SecurityDemoOptions {
  /** The `/api` CORS allow-list (default `cors_dev`'s, `http://localhost:5173`). */
  api_origins?: readonly string[]
  /** Signs the session cookie (default `FW_SESSION_SECRET`, else a development default). */
  session_secret?: string
}

const escape_html = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** The router's own prefix as the page sees it ('' at the root), from the path the page was asked for. */
const base_of = (path: string): string =>
  path
    .split('/')
    .filter(Boolean)
    .map((s) => '/' + s)
    .join('')

const page: Handler = (req, res) => {
  const s = req.state(Session)!
  const visits = Number(s.get('visits') ?? '0') + 1
  s.set('visits', String(visits))
  const values: Record<string, string> = {
    base: base_of(req.path()),
    csrf: req.state(CsrfToken)!.value,
    visits: String(visits),
  }
  const html = PAGE.replace(/\{\{(\w+)\}\}/g, (_m, k: string) => escape_html(values[k] ?? ''))
  res.header('Content-Type', 'text/html; charset=utf-8').send(html)
}

const form: Handler = (req, res) => {
  const message = new URLSearchParams(req.body()).get('message') ?? ''
  res.json('ok', true, 'message', message, 'visits', Number(req.state(Session)!.get('visits') ?? '0'))
}

/**
 * Registers the demo on a router: `/api/ping` behind the API stack, the page, its form and its two assets.
 * @example
 * setup_security(app, { api_origins: ['http://127.0.0.1:3000'] })
 */
export function setup_security(
  r: Router,
  { api_origins = [DEV_ORIGIN], session_secret }: SecurityDemoOptions = {},
): void {
  r.group('/api', (api) => {
    api.use(security_headers_dev()).use(cors_dev(api_origins)).use(rate_limit_dev())
    api.get('/ping', (_req, res) => res.json('ok', true))
  })
  const headers = adapt_ctx(security_headers({ csp: PAGE_CSP }))
  const secret = session_secret ?? dev_secret('FW_SESSION_SECRET', 'dev-session-secret-change-me-before-deploying')
  // A cookie name of its own, so the showcase's other session demo never reads this one's cookie.
  // The session before CSRF: each token is bound to the visitor's session, so one minted for another session fails.
  const browser: Middleware[] = [headers, adapt_ctx(session({ secret, cookie_name: 'security_sid' })), csrf_dev()]
  r.get('/', compose(browser, page))
  const form_doc = {
    summary: 'Post the CSRF-protected form',
    body_type: 'application/x-www-form-urlencoded',
    body: schema({
      message: field.string(),
      _csrf: field.string().required().describe('the token of the page (or the x-csrf-token header)'),
    }),
    responses: { 200: { description: 'The message and the visit count' } },
  } as const
  r.post('/form', form_doc, compose(browser, form))
  r.get(
    '/security-page/{file}',
    compose([headers], (req, res) => {
      const file = req.param('file')
      if (!ASSETS.has(file)) return void res.error(404, CODE_NOT_FOUND, 'File not found')
      res.file(PAGE_DIR + file)
    }),
  )
}

export const demo: Demo = {
  name: 'security',
  description:
    '/api with security headers, CORS and rate limit; a page with CSRF-protected form, session counter, cross-origin fetch',
  setup(_app, r) {
    setup_security(r)
  },
}
