// The files and sse demos in a real headless Chromium, mounted as the showcase mounts them: the upload form and the
// event page.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type BrowserContext } from 'playwright-core'
import t from 'tap'
import { setup_files } from '../../demo/files.js'
import { setup_sse } from '../../demo/sse.js'
import { App } from '../../index.js'
import { CHROMIUM, CHROMIUM_FLAGS as FLAGS, ensure } from '../helpers/services.js'

t.test('files and sse demos in a browser', async (t) => {
  ensure('chromium')
  const app = new App({ access_log: false })
  app.group('/files', (g) => setup_files(app, g, { max_file_bytes: 1024 }))
  app.group('/sse', (g) => setup_sse(g, { interval_ms: 50 }))
  t.teardown(() => app.close())
  const origin = `http://127.0.0.1:${await app.listen(0)}`
  const dir = t.testdir()
  const context: BrowserContext = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
  })
  t.teardown(() => context.close())

  t.test('uploads a file through the form and lists it for download', async (t) => {
    const file = join(dir, 'notes.txt')
    writeFileSync(file, 'uploaded from chromium')
    const page = await context.newPage()
    await page.goto(`${origin}/files`)
    await page.setInputFiles('input[type=file]', file)
    await Promise.all([page.waitForURL(`${origin}/files/`), page.click('#send')])
    t.equal(await page.textContent('#files a'), 'notes.txt')
    const href = await page.getAttribute('#files a', 'href')
    const download = await page.request.get(origin + href!)
    t.same([download.status(), await download.text()], [200, 'uploaded from chromium'])
  })

  t.test('a file over the limit is refused with 413 File is too large', async (t) => {
    const file = join(dir, 'big.bin')
    writeFileSync(file, Buffer.alloc(2048))
    const page = await context.newPage()
    await page.goto(`${origin}/files`)
    await page.setInputFiles('input[type=file]', file)
    const [response] = await Promise.all([page.waitForResponse(`${origin}/files/upload`), page.click('#send')])
    t.same([response.status(), (await response.json()).message], [413, 'File is too large'])
  })

  t.test('the event page shows the count as it goes up', async (t) => {
    const page = await context.newPage()
    await page.goto(`${origin}/sse`)
    await page.waitForFunction("Number(document.getElementById('count').textContent) >= 3", undefined, {
      timeout: 10_000,
    })
    t.ok(Number(await page.textContent('#count')) >= 3)
    await page.close()
  })
})
