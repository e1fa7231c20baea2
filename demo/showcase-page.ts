// Demo `showcase-page`: the showcase's browser page at `/`, one self-contained HTML file (inline style and script)
// whose Content-Security-Policy allows exactly those two inline blocks by hash and `fetch` to its own origin.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { adapt_ctx, compose, type Router } from '../index.js'
import { security_headers } from '../lib/middleware/security/index.js'
import type { Demo } from './demo.js'

const dir = new URL('./showcase-page/', import.meta.url)
const read = (name: string): string => readFileSync(new URL(name, dir), 'utf8')

/** The inline script and style, exactly as they stand between their tags in the page. */
export const PAGE_SCRIPT = read('page.js')
export const PAGE_STYLE = read('page.css')

// A closing tag inside the inlined text would end the block early and leave the rest as markup.
for (const [name, text] of [
  ['page.js', PAGE_SCRIPT],
  ['page.css', PAGE_STYLE],
] as const) {
  if (/<\/(script|style)/i.test(text))
    throw new Error(`demo/showcase-page/${name} must not contain a closing script or style tag`)
}

/** The page as served. */
export const PAGE_HTML = read('index.html').replace(/\{\{(script|style)\}\}/g, (_m, k: string) =>
  k === 'script' ? PAGE_SCRIPT : PAGE_STYLE,
)

/** A CSP source expression for an inline block: `'sha256-<base64 digest>'`. */
export function csp_hash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`
}

/** The page's Content-Security-Policy: its own inline script and style by hash, `fetch` to its origin, nothing else. */
export const PAGE_CSP =
  `default-src 'none'; script-src ${csp_hash(PAGE_SCRIPT)}; style-src ${csp_hash(PAGE_STYLE)}; ` +
  "img-src data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

/**
 * Registers `GET /` (the page, behind the security headers with `PAGE_CSP`) on a router.
 * @example
 * setup_showcase_page(app)
 */
export function setup_showcase_page(r: Router): void {
  const headers = adapt_ctx(security_headers({ csp: PAGE_CSP }))
  r.get(
    '/',
    compose([headers], (_req, res) => res.header('Content-Type', 'text/html; charset=utf-8').send(PAGE_HTML)),
  )
}

export const demo: Demo = {
  name: 'showcase-page',
  description: 'the browser page at /: register, log in, /auth/me with the token, the /session counter',
  setup(_app, r) {
    setup_showcase_page(r)
  },
}
