// The security demo in a real headless Chromium: CSRF-protected form, session counter, cross-origin fetch, headers and
// CSP.
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { setup_security } from '../../demo/security.js'
import { App } from '../../index.js'
import { CHROMIUM, CHROMIUM_FLAGS as FLAGS, ensure } from '../helpers/services.js'

/** A security demo App listening on 127.0.0.1; `api_origins` is its /api CORS allow-list. */
async function serve(t: Test, api_origins?: string[]): Promise<string> {
  const app = new App({ access_log: false })
  setup_security(app, {
    session_secret: 'e2e-session-secret-0123456789abcdef',
    ...(api_origins === undefined ? {} : { api_origins }),
  })
  t.teardown(() => app.close())
  return `http://127.0.0.1:${await app.listen(0)}`
}

/** Every CSP violation and script error a page reports, recorded from before its first script runs. */
async function watch(page: Page): Promise<string[]> {
  const problems: string[] = []
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`))
  await page.exposeFunction('report_violation', (v: string) => problems.push(`csp: ${v}`))
  // Page-side code is passed as text: this file is type-checked without the DOM library.
  await page.addInitScript(`document.addEventListener('securitypolicyviolation',
    (e) => window.report_violation(e.violatedDirective + ' ' + e.blockedURI))`)
  return problems
}

const visits = async (page: Page): Promise<number> => Number(await page.textContent('#visits'))

t.test('security demo in a browser', async (t) => {
  ensure('chromium')
  const page_origin = await serve(t)
  const refused_origin = await serve(t)
  const api = await serve(t, [page_origin])
  const context: BrowserContext = await chromium.launchPersistentContext(t.testdir(), {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
  })
  t.teardown(() => context.close())

  t.test('posts the form with its CSRF token', async (t) => {
    const page = await context.newPage()
    await page.goto(api + '/')
    const n = await visits(page)
    const [response] = await Promise.all([page.waitForResponse(api + '/form'), page.click('#send')])
    t.equal(response.status(), 200)
    t.same(await response.json(), { ok: true, message: 'hello', visits: n })
    const sent = await response.request().allHeaders()
    t.equal(sent.origin, 'null', 'under Referrer-Policy no-referrer the browser hides the origin of a same-origin post')
    t.equal(sent['sec-fetch-site'], 'same-origin')
  })

  t.test('refuses the form without its CSRF token with 403 csrf_failed', async (t) => {
    const page = await context.newPage()
    await page.goto(api + '/')
    await page.evaluate("document.querySelector('input[name=_csrf]').remove()")
    const [response] = await Promise.all([page.waitForResponse(api + '/form'), page.click('#send')])
    t.equal(response.status(), 403)
    t.same(await response.json(), { ok: false, error: 'csrf_failed', message: 'CSRF token missing' })
  })

  t.test('keeps the session counter across reloads', async (t) => {
    const page = await context.newPage()
    await page.goto(api + '/')
    const first = await visits(page)
    await page.reload()
    t.equal(await visits(page), first + 1)
    await page.reload()
    t.equal(await visits(page), first + 2)
  })

  /** What the API button shows once it called the API from a page served by `origin`. */
  const ping_from = async (origin: string): Promise<string | null> => {
    const page = await context.newPage()
    await page.goto(`${origin}/?api=${encodeURIComponent(api)}`)
    await page.click('#ping')
    // A locator, not waitForFunction: polling a string predicate is an eval, which the page's CSP refuses.
    await page
      .locator('#api-result')
      .filter({ hasNotText: /^(not called yet|calling\.\.\.)$/ })
      .waitFor()
    return page.textContent('#api-result')
  }

  t.test('lets a page from an allowed origin call the API with credentials', async (t) => {
    t.equal(await ping_from(page_origin), 'allowed: 200 {"ok":true}')
  })

  t.test('blocks a page from a refused origin', async (t) => {
    t.equal(await ping_from(refused_origin), 'blocked: TypeError')
  })

  t.test('renders the page under its security headers without CSP violations or script errors', async (t) => {
    const page = await context.newPage()
    const problems = await watch(page)
    const response = await page.goto(api + '/')
    t.equal(response?.headers()['x-frame-options'], 'DENY')
    t.equal(response?.headers()['cross-origin-opener-policy'], 'same-origin')
    t.equal(await page.textContent('#api-url'), `http://localhost:${new URL(api).port}/api/ping`, 'the page script ran')
    t.match(await page.evaluate('getComputedStyle(document.body).fontFamily'), /system-ui/, 'the stylesheet applied')
    t.same(problems, [])
    await page.evaluate(`new Promise((done) => {
      document.addEventListener('securitypolicyviolation', done, { once: true })
      fetch('https://example.invalid/x').catch(() => {})
    })`)
    t.same(problems, ['csp: connect-src https://example.invalid/x'], 'the watch does see a violation')
  })
})
