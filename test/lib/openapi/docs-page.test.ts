import Fastify from 'fastify'
import t, { type Test } from 'tap'
import { fw_plugin } from '../../../adapters/plugin.js'
import { App } from '../../../index.js'
import { build } from '../../helpers/build.js'

/** The URLs a page refers to (`href`, `src`, `data-spec`), resolved against the page's own URL as a browser would. */
function referenced(html: string, page: string): string[] {
  return [...html.matchAll(/(?:href|src|data-spec)="([^"]+)"/g)].map(
    (m) => new URL(m[1]!.replaceAll('&#38;', '&'), `http://host${page}`).pathname,
  )
}

type Get = (url: string) => Promise<{ statusCode: number; body: string }>

/** Checks that `page` answers 200 and refers to exactly `expected` (resolved), each of which answers 200. */
async function page_refers_to(t: Test, get: Get, page: string, expected: string[]): Promise<void> {
  const r = await get(page)
  t.equal(r.statusCode, 200)
  const urls = referenced(r.body, page)
  t.same(urls, expected)
  for (const url of urls) t.equal((await get(url)).statusCode, 200, url)
}

t.test('docs_handlers', async (t) => {
  const app = build(t, (app) => {
    app.get('/x', (_req, res) => void res.json('ok', true))
    app.openapi({ info: { title: 'A <b> API', version: '2' }, path: '/spec.json', docs: '/reference' })
  })

  t.test('serves a page that loads Swagger UI and the document from the app itself', async (t) => {
    const r = await app.inject({ url: '/reference' })
    t.equal(r.statusCode, 200)
    t.match(r.headers['content-type'], /^text\/html/)
    t.match(r.body, '<title>A &#60;b&#62; API 2</title>')
    t.match(r.body, '<script src="reference/swagger-ui-bundle.js"></script>')
    t.match(r.body, 'data-spec="spec.json"')
    t.notMatch(r.body, /https?:\/\//, 'no CDN')
    const init = await app.inject({ url: '/reference/init.js' })
    t.equal(init.statusCode, 200)
    t.match(init.body, 'dataset.spec')
  })

  t.test('the page asked for with a trailing slash refers to the same files', async (t) => {
    await page_refers_to(t, (url) => app.inject({ url }), '/reference/', [
      '/reference/swagger-ui.css',
      '/reference/favicon-32x32.png',
      '/spec.json',
      '/reference/swagger-ui-bundle.js',
      '/reference/init.js',
    ])
  })

  t.test('serves the Swagger UI files from the installed package, and nothing else', async (t) => {
    const js = await app.inject({ url: '/reference/swagger-ui-bundle.js' })
    t.equal(js.statusCode, 200)
    t.ok(js.body.length > 100_000)
    t.equal((await app.inject({ url: '/reference/swagger-ui.css' })).statusCode, 200)
    for (const bad of ['/reference/package.json', '/reference/..%2fpackage.json', '/reference/index.html']) {
      const r = await app.inject({ url: bad })
      t.equal(r.statusCode, 404, bad)
    }
  })

  t.test('the document is served at the chosen path', async (t) => {
    const r = await app.inject({ url: '/spec.json' })
    t.same(Object.keys(r.json().paths), ['/x'])
  })
})

t.test('docs_handlers under a host prefix', async (t) => {
  const app = new App({ access_log: false })
  app.get('/x', (_req, res) => void res.json('ok', true))
  app.openapi({ info: { title: 'Embedded', version: '1' }, path: '/api/spec.json', docs: '/api/docs' })
  const host = Fastify()
  await host.register(fw_plugin, { app, prefix: '/fw' })
  t.teardown(() => host.close())

  t.test('every asset and the document the page refers to answer 200 under the prefix', async (t) => {
    await page_refers_to(t, (url) => host.inject({ url }), '/fw/api/docs', [
      '/fw/api/docs/swagger-ui.css',
      '/fw/api/docs/favicon-32x32.png',
      '/fw/api/spec.json',
      '/fw/api/docs/swagger-ui-bundle.js',
      '/fw/api/docs/init.js',
    ])
    t.same(Object.keys((await host.inject({ url: '/fw/api/spec.json' })).json().paths), ['/x'])
  })
})

t.test('docs page security headers', async (t) => {
  const app = build(t, (app) => {
    app.get('/x', (_req, res) => void res.json('ok', true))
    app.openapi({
      info: { title: 'T', version: '1' },
      servers: [
        { url: '/' },
        { url: 'https://api.example.com/v1' },
        { url: 'https://{tenant}.example.org' },
        { url: 'https://a;script-src/' },
      ],
    })
  })

  t.test(
    'the page carries a CSP that runs only its own script files and is framed by its own origin only',
    async (t) => {
      const r = await app.inject({ url: '/docs' })
      const csp = String(r.headers['content-security-policy'])
      const directive = (name: string) => csp.split(/;\s*/).find((d) => d.startsWith(`${name} `))
      t.equal(directive('script-src'), "script-src 'self'", 'no inline script, no CDN')
      t.equal(directive('object-src'), "object-src 'none'")
      t.equal(directive('base-uri'), "base-uri 'none'")
      t.equal(directive('frame-ancestors'), "frame-ancestors 'self'")
      t.match(directive('default-src'), "default-src 'none'")
      t.equal(r.headers['x-content-type-options'], 'nosniff')
    },
  )

  t.test("'Try it out' may reach the document's servers: the page's origin and each server's", async (t) => {
    const csp = String((await app.inject({ url: '/docs' })).headers['content-security-policy'])
    t.match(csp, "connect-src 'self' https://api.example.com https:;")
  })

  t.test('the page script and the Swagger UI files are sent with nosniff', async (t) => {
    for (const url of ['/docs/init.js', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css']) {
      const r = await app.inject({ url })
      t.equal(r.statusCode, 200, url)
      t.equal(r.headers['x-content-type-options'], 'nosniff', url)
      t.match(r.headers['content-type'], /; charset=utf-8$/, url)
    }
  })
})
