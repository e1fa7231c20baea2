import t from 'tap'
import { client_error_answer } from '../../adapters/error-answers.js'
import { listening } from '../helpers/build.js'
import { raw } from '../helpers/http.js'

const BAD = { ok: false, error: 'bad_request', message: 'Bad Request' }

t.test('client_error', async (t) => {
  const { port } = await listening(t, (app) => app.post('/x', (req, res) => res.text(req.body())))

  const cases: Array<[string, string]> = [
    ['a malformed request line', 'GET /x HTTP/9.9 extra\r\nHost: x\r\n\r\n'],
    ['a request line with a space in the path', 'GET /a b HTTP/1.1\r\nHost: x\r\n\r\n'],
    [
      'bad chunking',
      'POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\nzz\r\nabc\r\n0\r\n\r\n',
    ],
    ['a duplicate Content-Length', 'POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab'],
    [
      'Content-Length with Transfer-Encoding',
      'POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
  ]
  for (const [name, bytes] of cases) {
    t.test(`answers 400 bad_request in fw's shape for ${name}`, async (t) => {
      const r = await raw(port, bytes)
      t.same([r.status, r.headers['content-type'], JSON.parse(r.body)], [400, 'application/json; charset=utf-8', BAD])
    })
  }

  t.test('answers 431 headers_too_large for headers over the limit', async (t) => {
    const r = await raw(port, `GET /x HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    t.same(
      [r.status, JSON.parse(r.body)],
      [431, { ok: false, error: 'headers_too_large', message: 'Request headers are too large' }],
    )
  })

  t.test('maps a request timeout to 408 request_timeout', async (t) => {
    t.same(client_error_answer('ERR_HTTP_REQUEST_TIMEOUT'), {
      status: 408,
      code: 'request_timeout',
      message: 'Request timeout',
    })
  })
})
