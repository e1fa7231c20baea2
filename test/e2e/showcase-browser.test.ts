// The showcase page in a real headless Chromium: the live request counts read from /metrics.
import { chromium, type BrowserContext } from 'playwright-core'
import t from 'tap'
import { build_showcase } from '../../demo/showcase.js'
import { App } from '../../index.js'
import { CHROMIUM, CHROMIUM_FLAGS as FLAGS, ensure } from '../helpers/services.js'

t.test('showcase page in a browser', async (t) => {
  ensure('chromium')
  const app = await build_showcase(new App({ access_log: false }))
  t.teardown(() => app.close())
  const origin = `http://127.0.0.1:${await app.listen(0)}`
  const context: BrowserContext = await chromium.launchPersistentContext(t.testdir(), {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
  })
  t.teardown(() => context.close())

  t.test('shows live request counts by route, read from /metrics, growing as requests arrive', async (t) => {
    for (let i = 0; i < 3; i++) await fetch(`${origin}/users/${i + 1}`)
    const page = await context.newPage()
    const problems: string[] = []
    page.on('pageerror', (err) => problems.push(err.message))
    await page.goto(`${origin}/`)
    // The page's CSP forbids string evaluation, so the rows are read through locators, polled until they match.
    const count = async (route: string): Promise<string | undefined> => {
      const rows = await page.locator('#request-counts tbody tr').allTextContents()
      return rows.map((r) => r.match(/^(.*)GET(\d+)$/)).find((m) => m?.[1] === route)?.[2]
    }
    const until = async (route: string, n: string): Promise<void> => {
      for (let waited = 0; waited < 10_000 && (await count(route)) !== n; waited += 100)
        await new Promise((r) => setTimeout(r, 100))
      t.equal(await count(route), n, `${route} shows ${n}`)
    }
    await until('/users/{id}', '3')
    await fetch(`${origin}/users/9`)
    await until('/users/{id}', '4')
    t.ok(
      Number(await page.textContent('#requests-total')) >= 5,
      'the total counts every route, the page and /metrics too',
    )
    t.same(problems, [])
    await page.close()
  })

  t.test('the event page counts up through the showcase’s compression, each event flushed as it is sent', async (t) => {
    const page = await context.newPage()
    const [events] = await Promise.all([page.waitForResponse(`${origin}/sse/events`), page.goto(`${origin}/sse`)])
    t.match(events.headers()['content-encoding'], /^(br|gzip|deflate)$/)
    let n = 0
    for (let waited = 0; waited < 10_000 && n < 2; waited += 100) {
      n = Number(await page.textContent('#count'))
      if (n < 2) await new Promise((r) => setTimeout(r, 100))
    }
    t.ok(n >= 2, `the count went up to ${n} while the stream stays open`)
    await page.close()
  })
})
