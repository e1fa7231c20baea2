// The showcase's browser page: one self-contained HTML file whose CSP allows exactly its inline script and style.
import { createHash } from 'node:crypto'
import t, { type Test } from 'tap'
import { demos } from '../../demo/registry.js'
import {
  csp_hash,
  PAGE_CSP,
  PAGE_HTML,
  PAGE_SCRIPT,
  PAGE_STYLE,
  setup_showcase_page,
} from '../../demo/showcase-page.js'
import { build } from '../helpers/build.js'

/** The text between the page's only `<tag>` and `</tag>`. */
function inline(t: Test, html: string, tag: 'script' | 'style'): string {
  const blocks = [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))]
  t.equal(blocks.length, 1, `one <${tag}>`)
  return blocks[0]![1]!
}

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`

t.test('showcase-page demo', async (t) => {
  t.test('is registered under its name and mounted at the root of the showcase', async (t) => {
    t.equal(demos['showcase-page']?.name, 'showcase-page')
  })

  t.test('serves the page at / as HTML behind the security headers and its CSP', async (t) => {
    const app = build(t, (app) => setup_showcase_page(app))
    const r = await app.inject({ url: '/' })
    t.equal(r.statusCode, 200)
    t.equal(r.headers['content-type'], 'text/html; charset=utf-8')
    t.equal(r.body, PAGE_HTML)
    t.equal(r.headers['content-security-policy'], PAGE_CSP)
    t.equal(r.headers['x-content-type-options'], 'nosniff')
    t.equal(r.headers['x-frame-options'], 'DENY')
    t.equal(r.headers['referrer-policy'], 'no-referrer')
    t.match(r.body, /^<!doctype html>/)
  })

  t.test('allows by hash exactly the inline script and style the page carries', async (t) => {
    const script = inline(t, PAGE_HTML, 'script')
    const style = inline(t, PAGE_HTML, 'style')
    t.equal(script, PAGE_SCRIPT)
    t.equal(style, PAGE_STYLE)
    t.equal(csp_hash(script), sha256(script))
    t.equal(
      PAGE_CSP,
      `default-src 'none'; script-src ${sha256(script)}; style-src ${sha256(style)}; img-src data:; ` +
        "connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
    )
  })

  t.test('loads nothing from elsewhere: no script or stylesheet files, no absolute URLs', async (t) => {
    t.notMatch(PAGE_HTML, /<script[^>]+src=/)
    t.notMatch(PAGE_HTML, /<link[^>]+stylesheet/)
    t.notMatch(PAGE_HTML, /https?:\/\//)
    t.notMatch(PAGE_HTML, /\{\{\w+\}\}/, 'every placeholder is filled')
  })

  t.test('calls the API routes of the showcase and writes answers as text, never as markup', async (t) => {
    for (const call of [
      "call('POST', '/auth/register'",
      "call('POST', '/auth/login'",
      "call('GET', '/auth/me')",
      "call('GET', '/auth/admin')",
      "call('GET', '/session')",
      "headers.authorization = 'Bearer ' + token",
    ]) {
      t.match(PAGE_SCRIPT, call)
    }
    t.notMatch(PAGE_SCRIPT, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/)
  })

  t.test('polls /metrics for the live request counts and sums fw_http_requests_total by route', async (t) => {
    t.match(PAGE_SCRIPT, "fetch(base + '/metrics'")
    t.match(PAGE_SCRIPT, /\^fw_http_requests_total/)
    t.match(PAGE_HTML, /<table id="request-counts">/)
  })
})
