import t from 'tap'
import { compression } from '../../../../lib/middleware/compression/compression.js'
import { etag, etag_of } from '../../../../lib/middleware/etag/etag.js'
import { build, listening } from '../../../helpers/build.js'

t.test('etag', async (t) => {
  t.test('tags a GET answer and answers 304 without a body to a matching If-None-Match', async (t) => {
    const app = build(t, (app) => {
      app.use(etag())
      app.get('/x', (_req, res) => void res.header('cache-control', 'max-age=60').json('n', 1))
    })
    const first = await app.inject('/x')
    t.equal(first.headers.etag, etag_of('{"n":1}'))
    t.match(first.headers.etag, /^"[0-9a-f]+-[\w-]+"$/)
    for (const header of [
      String(first.headers.etag),
      `W/${String(first.headers.etag)}`,
      `"other", ${String(first.headers.etag)}`,
      '*',
    ]) {
      const again = await app.inject({ url: '/x', headers: { 'if-none-match': header } })
      t.equal(again.statusCode, 304, header)
      t.equal(again.body, '')
      t.equal(again.headers.etag, first.headers.etag)
      t.equal(again.headers['cache-control'], 'max-age=60')
    }
    t.equal((await app.inject({ url: '/x', headers: { 'if-none-match': '"other"' } })).statusCode, 200)
  })

  t.test('writes weak tags when asked, and keeps a tag the handler set', async (t) => {
    const app = build(t, (app) => {
      app.use(etag({ weak: true }))
      app.get('/x', (_req, res) => void res.text('x'))
      app.get('/own', (_req, res) => void res.header('etag', '"v7"').text('x'))
      app.get('/err', (_req, res) => void res.error(404, 'not_found', 'no'))
    })
    t.match((await app.inject('/x')).headers.etag, /^W\/"/)
    t.equal((await app.inject('/own')).headers.etag, '"v7"')
    t.equal((await app.inject('/err')).headers.etag, undefined, 'only 200 answers are tagged')
  })

  t.test('refuses an unsafe method whose If-Match does not hold with 412', async (t) => {
    let version: string | undefined = '"v1"'
    const app = build(t, (app) => {
      app.use(etag({ current: () => version }))
      app.put('/doc', (_req, res) => void res.json('saved', true))
    })
    const put = (h: Record<string, string>) => app.inject({ method: 'PUT', url: '/doc', headers: h, payload: '{}' })
    t.equal((await put({ 'if-match': '"v1"' })).statusCode, 200)
    t.equal((await put({ 'if-match': '*' })).statusCode, 200)
    t.equal((await put({})).statusCode, 200, 'no If-Match, no precondition')
    const stale = await put({ 'if-match': '"v0"' })
    t.equal(stale.statusCode, 412)
    t.same(stale.json(), { ok: false, error: 'precondition_failed', message: 'Precondition failed' })
    t.equal((await put({ 'if-match': 'W/"v1"' })).statusCode, 412, 'If-Match compares strongly')
    version = undefined
    t.equal((await put({ 'if-match': '*' })).statusCode, 412, '* needs the resource to exist')
  })

  t.test(
    'reads the weak prefix as case-sensitive W/ (RFC 9110 8.8.3): w/"x" names no tag, as fresh has it',
    async (t) => {
      const app = build(t, (app) => {
        app.use(etag({ current: () => '"v1"' }))
        app.get('/x', (_req, res) => void res.header('etag', '"v1"').text('x'))
        app.put('/x', (_req, res) => void res.json('saved', true))
      })
      const get = (inm: string) => app.inject({ url: '/x', headers: { 'if-none-match': inm } })
      t.equal((await get('w/"v1"')).statusCode, 200, 'If-None-Match: w/"v1" is not a weak "v1"')
      t.equal((await get('"v0", w/"v1"')).statusCode, 200, 'nor inside a list')
      t.equal((await get('"v0", W/"v1"')).statusCode, 304, 'W/"v1" still is')
      const put = (im: string) => app.inject({ method: 'PUT', url: '/x', headers: { 'if-match': im }, payload: '{}' })
      t.equal((await put('w/"v1"')).statusCode, 412, 'If-Match: w/"v1" is not the strong "v1"')
      t.equal((await put('"v1"')).statusCode, 200)
    },
  )

  t.test('sends no Content-Length: 0 on a 304 to a GET (RFC 9110 8.6)', async (t) => {
    const { port } = await listening(t, (app) => {
      app.use(etag())
      app.get('/x', (_req, res) => void res.header('cache-control', 'max-age=60').text('hello world'))
    })
    const url = `http://127.0.0.1:${port}/x`
    const first = await fetch(url)
    const tag = String(first.headers.get('etag'))
    t.equal(first.headers.get('content-length'), '11')
    const again = await fetch(url, { headers: { 'if-none-match': tag } })
    t.equal(again.status, 304)
    t.equal(again.headers.get('content-length'), null, 'a 304 must not say its 200 had 0 bytes')
    t.equal(again.headers.get('etag'), tag)
    t.equal(again.headers.get('cache-control'), 'max-age=60')
    t.equal(first.headers.get('content-type'), 'text/plain; charset=utf-8')
    t.equal(again.headers.get('content-type'), null, 'no representation metadata on a 304 (RFC 9110 15.4.5)')
    t.equal(await again.text(), '')
  })

  t.test(
    "drops a handler's Content-Length from a 304: under compression it no longer says the 200's length",
    async (t) => {
      const body = 'hello world '.repeat(200)
      const { port } = await listening(t, (app) => {
        app.use(compression())
        app.use(etag())
        app.get('/x', (_req, res) => void res.header('content-length', String(body.length)).text(body))
      })
      const url = `http://127.0.0.1:${port}/x`
      for (const method of ['GET', 'HEAD']) {
        const first = await fetch(url, { method, headers: { 'accept-encoding': 'gzip' } })
        t.same([first.status, first.headers.get('content-encoding')], [200, 'gzip'], method)
        const again = await fetch(url, {
          method,
          headers: { 'accept-encoding': 'gzip', 'if-none-match': String(first.headers.get('etag')) },
        })
        t.same(
          [again.status, again.headers.get('content-length'), again.headers.get('etag')],
          [304, null, first.headers.get('etag')],
          `${method}: the 200 had ${String(first.headers.get('content-length'))} bytes`,
        )
      }
    },
  )

  t.test('answers HEAD as GET: the 200 with its length, the 304 with none (RFC 9110 8.6)', async (t) => {
    const { port } = await listening(t, (app) => {
      app.use(etag())
      app.get('/x', (_req, res) => void res.text('hello world'))
    })
    const head = (headers: Record<string, string> = {}) =>
      fetch(`http://127.0.0.1:${port}/x`, { method: 'HEAD', headers })
    const first = await head()
    const tag = String(first.headers.get('etag'))
    t.same([first.status, first.headers.get('content-length'), tag], [200, '11', etag_of('hello world')])
    const again = await head({ 'if-none-match': tag })
    t.same([again.status, again.headers.get('content-length'), again.headers.get('etag')], [304, null, tag])
  })

  t.test('matches If-None-Match on a tag with a comma inside its quotes (RFC 9110 8.8.3 etagc)', async (t) => {
    const app = build(t, (app) => {
      app.use(etag())
      app.get('/x', (_req, res) => void res.header('etag', '"v1,en"').text('x'))
    })
    for (const header of ['"v1,en"', '"v0,en", "v1,en"', 'W/"v1,en"', '"v0", W/"v1,en"']) {
      t.equal((await app.inject({ url: '/x', headers: { 'if-none-match': header } })).statusCode, 304, header)
    }
    for (const header of ['"v1"', '"en"', '"v1, en"', '"v1', 'en"']) {
      t.equal((await app.inject({ url: '/x', headers: { 'if-none-match': header } })).statusCode, 200, header)
    }
  })
})
