import t from 'tap'
import { build } from '../../helpers/build.js'

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
    t.match(r.body, '<script src="/reference/swagger-ui-bundle.js"></script>')
    t.notMatch(r.body, /https?:\/\//, 'no CDN')
    const init = await app.inject({ url: '/reference/init.js' })
    t.match(init.body, 'url: "/spec.json"')
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
