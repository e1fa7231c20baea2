// Conditional and Range requests on a file (`res.file`, `static_dir`) as RFC 9110 13 evaluates them: If-Match and
// If-Range compare entity tags strongly, If-Range's date must equal Last-Modified, and If-Match overrides
// If-Unmodified-Since.
import { utimesSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { build } from '../helpers/build.js'

const BODY = 'file body'
const PRECONDITION_FAILED = { ok: false, error: 'precondition_failed', message: 'Precondition failed' }
/** The file's mtime, with a fraction of a second that Last-Modified (whole seconds) leaves out. */
const MTIME = new Date('2020-03-04T05:06:07.500Z')
const LAST_MODIFIED = 'Wed, 04 Mar 2020 05:06:07 GMT'

t.test('conditional and Range requests on a file', async (t) => {
  const dir = t.testdir({ 'note.txt': BODY, public: { 'a.txt': BODY } })
  utimesSync(join(dir, 'note.txt'), MTIME, MTIME)
  utimesSync(join(dir, 'public', 'a.txt'), MTIME, MTIME)
  const app = build(t, (app) => {
    app.get('/file', (_req, res) => void res.file(join(dir, 'note.txt')))
    app.static_dir(join(dir, 'public'), { prefix: '/static' })
  })
  const first = await app.inject({ url: '/file' })
  const etag = String(first.headers.etag)
  const strong = etag.slice(2)

  t.test('the file has a weak ETag and a Last-Modified of whole seconds', async (t) => {
    t.match(etag, /^W\/"[^"]+"$/)
    t.equal(first.headers['last-modified'], LAST_MODIFIED)
  })

  t.test('If-Range with an entity tag never matches the weak ETag: the whole file, 200', async (t) => {
    for (const url of ['/file', '/static/a.txt']) {
      const tag = String((await app.inject({ url })).headers.etag)
      for (const if_range of [tag, tag.slice(2), `"other", ${tag}`]) {
        const r = await app.inject({ url, headers: { range: 'bytes=0-3', 'if-range': if_range } })
        t.same(
          [r.statusCode, r.body, r.headers['content-range'], r.headers['content-length']],
          [200, BODY, undefined, '9'],
          `${url} If-Range: ${if_range}`,
        )
      }
    }
    // Without If-Range the Range applies.
    const r = await app.inject({ url: '/file', headers: { range: 'bytes=0-3' } })
    t.same([r.statusCode, r.body, r.headers['content-range']], [206, 'file', 'bytes 0-3/9'])
  })

  t.test('If-Range with a date applies the Range only when the date is the Last-Modified', async (t) => {
    const same = await app.inject({ url: '/file', headers: { range: 'bytes=0-3', 'if-range': LAST_MODIFIED } })
    t.same([same.statusCode, same.body, same.headers['content-range']], [206, 'file', 'bytes 0-3/9'])
    const dates = [
      'Wed, 04 Mar 2020 05:06:08 GMT', // a second later
      new Date().toUTCString(), // now
      'Wed, 04 Mar 2020 05:06:06 GMT', // a second earlier
      'not a date',
    ]
    for (const if_range of dates) {
      const r = await app.inject({ url: '/file', headers: { range: 'bytes=0-3', 'if-range': if_range } })
      t.same([r.statusCode, r.body, r.headers['content-range']], [200, BODY, undefined], `If-Range: ${if_range}`)
    }
  })

  t.test('a Range on a HEAD is ignored (RFC 9110 14.2: GET only): 200 with the whole length, as its GET', async (t) => {
    for (const url of ['/file', '/static/a.txt']) {
      for (const headers of [{ range: 'bytes=0-3' }, { range: 'bytes=0-3', 'if-range': LAST_MODIFIED }, {}]) {
        const r = await app.inject({ method: 'HEAD', url, headers })
        t.same(
          [r.statusCode, r.body, r.headers['content-range'], r.headers['content-length'], r.headers['accept-ranges']],
          [200, '', undefined, '9', 'bytes'],
          `HEAD ${url} ${JSON.stringify(headers)}`,
        )
      }
    }
    // The GET with the same Range still gets its part.
    const r = await app.inject({ url: '/static/a.txt', headers: { range: 'bytes=0-3' } })
    t.same([r.statusCode, r.body, r.headers['content-range']], [206, 'file', 'bytes 0-3/9'])
  })

  t.test('If-Match compares strongly: a tag never matches the weak ETag, 412; * matches', async (t) => {
    for (const if_match of [etag, strong, `"other", ${etag}`, `${strong}, "other"`]) {
      for (const method of ['GET', 'HEAD'] as const) {
        const r = await app.inject({ method, url: '/file', headers: { 'if-match': if_match } })
        t.equal(r.statusCode, 412, `${method} If-Match: ${if_match}`)
        if (method === 'GET') t.same(r.json(), PRECONDITION_FAILED)
      }
    }
    const any = await app.inject({ url: '/file', headers: { 'if-match': '*' } })
    t.same([any.statusCode, any.body], [200, BODY])
    const s = await app.inject({ url: '/static/a.txt', headers: { 'if-match': String(first.headers.etag) } })
    t.equal(s.statusCode, 412, 'static_dir too')
  })

  t.test('If-Match present: If-Unmodified-Since is ignored', async (t) => {
    const long_before = 'Mon, 01 Jan 1990 00:00:00 GMT'
    const any = await app.inject({
      url: '/file',
      headers: { 'if-match': '*', 'if-unmodified-since': long_before },
    })
    t.same([any.statusCode, any.body], [200, BODY], 'If-Match: * wins over a failing If-Unmodified-Since')
    const ranged = await app.inject({
      url: '/file',
      headers: { 'if-match': '*', 'if-unmodified-since': long_before, range: 'bytes=5-8' },
    })
    t.same([ranged.statusCode, ranged.body], [206, 'body'], 'and the Range still applies')
    // Without If-Match the date is evaluated.
    const alone = await app.inject({ url: '/file', headers: { 'if-unmodified-since': long_before } })
    t.equal(alone.statusCode, 412)
    const later = await app.inject({ url: '/file', headers: { 'if-unmodified-since': LAST_MODIFIED } })
    t.equal(later.statusCode, 200)
  })

  t.test(
    'a date that is not an HTTP-date is ignored (RFC 9110 13.1.3, 13.1.4, 13.1.5), as http_cache ignores it',
    async (t) => {
      // `Date.parse` reads each of these: ISO dates, a bare number (`1` is 2001), a date without its zone.
      const not_http_dates = ['2010-03-04', '1', '2010-03-04T05:06:07Z', 'Wed, 04 Mar 2010 05:06:07']
      for (const url of ['/file', '/static/a.txt']) {
        for (const date of not_http_dates) {
          const unmodified = await app.inject({ url, headers: { 'if-unmodified-since': date } })
          t.same([unmodified.statusCode, unmodified.body], [200, BODY], `${url} If-Unmodified-Since: ${date}`)
        }
        for (const date of ['2030-03-04', '2020-03-04T05:06:07Z', 'Wed, 04 Mar 2020 05:06:07']) {
          const modified = await app.inject({ url, headers: { 'if-modified-since': date } })
          t.same([modified.statusCode, modified.body], [200, BODY], `${url} If-Modified-Since: ${date}`)
        }
        // The Last-Modified written as an ISO date or without its zone is no HTTP-date: the whole file.
        for (const date of ['2020-03-04T05:06:07Z', 'Wed, 04 Mar 2020 05:06:07']) {
          const r = await app.inject({ url, headers: { range: 'bytes=0-3', 'if-range': date } })
          t.same([r.statusCode, r.body, r.headers['content-range']], [200, BODY, undefined], `${url} If-Range: ${date}`)
        }
      }
      // The obsolete forms are HTTP-dates (RFC 9110 5.6.7): evaluated.
      for (const date of ['Wednesday, 04-Mar-20 05:06:07 GMT', 'Wed Mar  4 05:06:07 2020']) {
        t.equal((await app.inject({ url: '/file', headers: { 'if-modified-since': date } })).statusCode, 304, date)
        const r = await app.inject({ url: '/file', headers: { range: 'bytes=0-3', 'if-range': date } })
        t.same([r.statusCode, r.body], [206, 'file'], `If-Range: ${date}`)
      }
      const old = 'Wednesday, 04-Mar-10 05:06:07 GMT'
      t.equal((await app.inject({ url: '/file', headers: { 'if-unmodified-since': old } })).statusCode, 412, old)
    },
  )
})
