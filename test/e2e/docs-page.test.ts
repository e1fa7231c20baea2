// The docs page in a real headless Chromium: Swagger UI, served by the app, lists every operation of the reference auth
// API.
import { chromium } from 'playwright-core'
import t from 'tap'
import { auth_api } from '../../demo/auth-api/index.js'
import { App } from '../../index.js'
import { CHROMIUM, CHROMIUM_FLAGS as FLAGS, ensure } from '../helpers/services.js'

t.test('docs page in a browser', async (t) => {
  ensure('chromium')
  const app = new App({ access_log: false })
  auth_api(app)
  app.openapi({ info: { title: 'Auth API', version: '1.0.0' } })
  t.teardown(() => app.close())
  const origin = `http://127.0.0.1:${await app.listen(0)}`
  const context = await chromium.launchPersistentContext(t.testdir(), {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
  })
  t.teardown(() => context.close())
  const page = await context.newPage()
  const errors: string[] = []
  const outside: string[] = []
  page.on('pageerror', (err) => errors.push(err.message))
  page.on('request', (r) => void (r.url().startsWith(origin) || r.url().startsWith('data:') || outside.push(r.url())))

  await page.goto(origin + '/docs')
  await page.waitForSelector('.opblock-summary-path', { timeout: 20_000 })
  const ops = await page.$$eval('.opblock-summary', (els) =>
    els.map((e) => (e as unknown as { innerText: string }).innerText.replace(/\s+/g, ' ').trim()),
  )
  const seen = ops.map((o) => /^(GET|POST|PUT|PATCH|DELETE) (\S+)/.exec(o)?.slice(1, 3).join(' ')).sort()
  t.same(seen, ['GET /auth/admin', 'GET /auth/me', 'POST /auth/login', 'POST /auth/register'])
  t.match(await page.textContent('.title'), 'Auth API')
  t.same(errors, [], 'no script errors')
  t.same(outside, [], 'every file comes from the app itself (no CDN)')
})
