// The chat demo in a real headless Chromium: two pages in one room see each other's messages, a page in another room
// sees none, and the page runs under its Content-Security-Policy without a violation.
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import t from 'tap'
import { setup_chat } from '../../demo/chat.js'
import { App } from '../../index.js'
import { CHROMIUM, CHROMIUM_FLAGS as FLAGS, ensure } from '../helpers/services.js'

/** Opens the chat page and joins `room`; resolves once the welcome line is shown. */
async function join(context: BrowserContext, origin: string, room: string, problems: string[]): Promise<Page> {
  const page = await context.newPage()
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`))
  page.on('console', (m) => void (m.type() === 'error' && problems.push(`console: ${m.text()}`)))
  await page.goto(`${origin}/chat`)
  await page.fill('#room', room)
  await page.click('#join-form button')
  await page.locator('#status', { hasText: new RegExp(`^in room ${room}$`) }).waitFor()
  await page.waitForSelector('#log li.server')
  return page
}

/**
 * Resolves once a log line of `page` contains `text`. A locator, not waitForFunction: polling a string predicate is an
 * eval, which the page's CSP refuses (it passed only while the line was already there at the first look).
 */
const shown = (page: Page, text: string): Promise<void> => page.locator('#log li', { hasText: text }).first().waitFor()

/** The log lines of a page, as `from: text`. */
const lines = (page: Page): Promise<string[]> =>
  page.$$eval('#log li', (lis) => lis.map((li) => `${li.firstChild?.textContent}: ${li.lastChild?.textContent}`))

t.test('chat demo in a browser', async (t) => {
  ensure('chromium')
  const app = new App({ access_log: false })
  setup_chat(app, app, {
    session_secret: 'e2e-chat-session-secret-0123456789',
    jwt_secret: 'e2e-chat-jwt-secret-0123456789-0123456789',
  })
  t.teardown(() => app.close())
  const origin = `http://127.0.0.1:${await app.listen(0)}`
  const context = await chromium.launchPersistentContext(t.testdir(), {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
  })
  t.teardown(() => context.close())
  const problems: string[] = []

  const first = await join(context, origin, 'lobby', problems)
  const second = await join(context, origin, 'lobby', problems)
  const elsewhere = await join(context, origin, 'attic', problems)

  await first.fill('#text', 'hello from the first tab')
  await first.click('#send')
  await shown(second, 'hello from the first tab')
  await second.fill('#text', '<b>not bold</b>')
  await second.click('#send')
  // Both tabs get the message from the server (its sender too), each in its own time: the second one's echo was read
  // before it arrived once, on a loaded machine.
  for (const page of [first, second]) await shown(page, 'not bold')

  const seen_by_first = (await lines(first)).filter((l) => !l.startsWith('server'))
  t.equal(seen_by_first.length, 2)
  t.match(seen_by_first[0], /^guest-\d+: hello from the first tab$/)
  t.match(seen_by_first[1], /^guest-\d+: <b>not bold<\/b>$/, 'shown as text, not markup')
  t.same(
    (await lines(second)).filter((l) => !l.startsWith('server')),
    seen_by_first,
  )
  t.equal(await first.$$eval('#log b', (b) => b.length), 0)
  t.same(
    (await lines(elsewhere)).filter((l) => !l.startsWith('server')),
    [],
    'another room hears nothing',
  )
  t.same(problems, [])
})
