import t from 'tap'
import { FwError, HttpError, error_body } from '../../index.js'

t.test('HttpError', async (t) => {
  t.test('carries its status, code, message, headers and details', async (t) => {
    const err = new HttpError(429, 'quota_exceeded', 'Daily quota exceeded', {
      headers: { 'Retry-After': '3600' },
      details: { limit: 100 },
    })
    t.ok(err instanceof Error)
    t.equal(err.name, 'HttpError')
    t.equal(err.status, 429)
    t.equal(err.code, 'quota_exceeded')
    t.equal(err.message, 'Daily quota exceeded')
    t.same(err.headers, { 'retry-after': '3600' })
    t.same(err.details, { limit: 100 })
    t.equal(err.expose, true)
    t.same(err.body(), {
      ok: false,
      error: 'quota_exceeded',
      message: 'Daily quota exceeded',
      details: { limit: 100 },
    })
  })

  t.test('defaults its message to the status text', async (t) => {
    const err = new HttpError(404, 'user_not_found')
    t.equal(err.message, 'Not Found')
    t.same(err.body(), { ok: false, error: 'user_not_found', message: 'Not Found' })
  })

  t.test('hides message and details of a 5xx unless exposed', async (t) => {
    const cause = new Error('ECONNREFUSED 10.0.0.7:5432')
    const hidden = new HttpError(503, 'db_down', 'pool exhausted on db-7', { details: { host: 'db-7' }, cause })
    t.equal(hidden.expose, false)
    t.equal(hidden.message, 'pool exhausted on db-7')
    t.equal(hidden.cause, cause)
    t.same(hidden.body(), { ok: false, error: 'db_down', message: 'Service Unavailable' })
    const shown = new HttpError(503, 'maintenance', 'Back at 10:00', { expose: true })
    t.same(shown.body(), { ok: false, error: 'maintenance', message: 'Back at 10:00' })
    const quiet = new HttpError(400, 'bad_thing', 'secret detail', { expose: false, details: [1] })
    t.same(quiet.body(), { ok: false, error: 'bad_thing', message: 'Bad Request' })
  })

  t.test('refuses a status outside 400-599 when made', async (t) => {
    for (const status of [399, 600, 200, 302, 404.5, NaN, '404' as unknown as number]) {
      t.throws(() => new HttpError(status, 'x'), {
        code: 'FW_ERR_HTTP_ERROR_BAD_STATUS',
        message: `HttpError: status must be an integer from 400 to 599; got ${typeof status === 'string' ? '"404"' : String(status)}`,
      })
    }
    t.equal(new HttpError(400, 'x').status, 400)
    t.equal(new HttpError(599, 'x').status, 599)
  })

  t.test('refuses a code that is not an HTTP token when made', async (t) => {
    for (const code of ['', 'user not found', 'a\r\nb', 'é', 'a/b', 7 as unknown as string]) {
      const err = t.throws(() => new HttpError(400, code)) as FwError
      t.ok(err instanceof FwError)
      t.equal(err.code, 'FW_ERR_HTTP_ERROR_BAD_CODE')
    }
    t.throws(() => new HttpError(400, 'bad code'), {
      message: 'HttpError: code must be an HTTP token such as "user_not_found"; got "bad code"',
    })
  })

  t.test('refuses a bad header, message or expose when made', async (t) => {
    t.throws(() => new HttpError(401, 'x', 'm', { headers: { 'bad name': 'v' } }), {
      code: 'FW_ERR_HTTP_ERROR_BAD_OPTION',
      message: 'HttpError: a header name must be an HTTP token; got "bad name"',
    })
    t.throws(() => new HttpError(401, 'x', 'm', { headers: { 'x-a': 'v\r\nset-cookie: a=b' } }), {
      code: 'FW_ERR_HTTP_ERROR_BAD_OPTION',
    })
    t.throws(() => new HttpError(401, 'x', 'm', { headers: { 'x-a': 1 as unknown as string } }), {
      code: 'FW_ERR_HTTP_ERROR_BAD_OPTION',
      message:
        'HttpError: headers["x-a"] must be a string without CR, LF or another control byte but tab, or a character above U+00FF; got 1',
    })
    // Bytes Node would refuse when the answer is written (ERR_INVALID_CHAR): the error answer itself would fail.
    for (const value of ['attachment; filename="日本.txt"', 'a\x01b', 'a\x7fb'])
      t.throws(() => new HttpError(401, 'x', 'm', { headers: { 'content-disposition': value } }), {
        code: 'FW_ERR_HTTP_ERROR_BAD_OPTION',
        message: `HttpError: headers["content-disposition"] must be a string without CR, LF or another control byte but tab, or a character above U+00FF; got ${JSON.stringify(value)}`,
      })
    t.same(
      new HttpError(401, 'x', 'm', { headers: { 'x-a': 'caf\u00e9\tb' } }).headers,
      { 'x-a': 'caf\u00e9\tb' },
      'Latin-1 and tab pass',
    )
    t.throws(() => new HttpError(401, 'x', 'm', { headers: null as unknown as Record<string, string> }), {
      code: 'FW_ERR_HTTP_ERROR_BAD_OPTION',
      message: 'HttpError: headers must be an object of header names to strings; got null',
    })
    t.throws(() => new HttpError(401, 'x', 7 as unknown as string), {
      code: 'FW_ERR_HTTP_ERROR_BAD_OPTION',
      message: 'HttpError: message must be a string; got 7',
    })
    t.throws(() => new HttpError(401, 'x', 'm', { expose: 'yes' as unknown as boolean }), {
      code: 'FW_ERR_HTTP_ERROR_BAD_OPTION',
      message: 'HttpError: expose must be true or false; got "yes"',
    })
  })
})

t.test('error_body', async (t) => {
  t.same(error_body('not_found', 'Route not found'), { ok: false, error: 'not_found', message: 'Route not found' })
  t.same(error_body('bad', 'Bad', [1]), { ok: false, error: 'bad', message: 'Bad', details: [1] })
  t.same(error_body('unauthorized'), { ok: false, error: 'unauthorized' })
  t.equal(JSON.stringify(error_body('a', 'b', { c: 1 })), '{"ok":false,"error":"a","message":"b","details":{"c":1}}')
})
