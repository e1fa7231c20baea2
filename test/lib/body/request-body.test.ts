import { existsSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { gunzipSync, gzipSync } from 'node:zlib'
import t from 'tap'
import { stream_body } from '../../../lib/body/index.js'
import type { Handler } from '../../../lib/compose.js'
import { build } from '../../helpers/build.js'
import { capture_log } from '../../helpers/log.js'
import { BOUNDARY, private_tmpdir, multipart_body, MULTIPART_HEADERS } from '../../helpers/multipart.js'

private_tmpdir()

/** Waits until `ok()` holds, for at most 5 s (cleanup runs after the response, later on a loaded machine). */
async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 250 && !ok(); i++) await new Promise((resolve) => setTimeout(resolve, 20))
}
const upload_dirs = (): string[] => readdirSync(tmpdir()).filter((n) => n.startsWith('fw-upload-'))
const TOO_LARGE = { ok: false, error: 'payload_too_large', message: 'Request body is too large' }

// A temporary folder of this file's own: tap runs test files in parallel, and another one's uploads must not count
// here.
process.env.TMPDIR = t.testdir()

t.test('Request.bytes', async (t) => {
  const app = build(t, (app) => {
    app.post('/echo', (req, res) => res.json('hex', req.bytes().toString('hex'), 'text_length', req.body().length))
    app.get('/none', (req, res) => res.json('length', req.bytes().length))
  })

  t.test('keeps binary bytes exactly, even under a text content type', async (t) => {
    const r = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'text/plain' },
      payload: Buffer.from([0xff, 0xfe, 0x00, 0x80]),
    })
    t.same(r.json(), { hex: 'fffe0080', text_length: 4 })
  })

  t.test('gives an empty Buffer when there is no body', async (t) => {
    t.same((await app.inject({ url: '/none' })).json(), { length: 0 })
  })
})

t.test('Request.form', async (t) => {
  const app = build(t, (app) => {
    app.post('/form', (req, res) => res.json('form', req.form(), 'proto', Object.getPrototypeOf(req.form())))
    app.post('/small', (req, res) => res.json('form', req.form({ fields: 2 })))
  })
  const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

  t.test('reads fields, repeated names as arrays, and keeps __proto__ and constructor as plain keys', async (t) => {
    const payload = 'a=1&b=x+y&a=2&__proto__=p&constructor=c&toString=t&e=%C3%A9'
    const r = await app.inject({ method: 'POST', url: '/form', headers: FORM, payload })
    const form = JSON.parse(
      '{"a":["1","2"],"b":"x y","__proto__":"p","constructor":"c","toString":"t","e":"é"}',
    ) as unknown
    t.same(JSON.parse(r.body), { form, proto: null })
    t.equal(r.body, JSON.stringify({ form, proto: null }))
    t.equal(({} as Record<string, unknown>).p, undefined)
  })

  t.test('answers 413 for a form with 10,000 fields (default limit 1000)', async (t) => {
    const payload = Array.from({ length: 10_000 }, (_, i) => `f${i}=1`).join('&')
    const r = await app.inject({ method: 'POST', url: '/form', headers: FORM, payload })
    t.same([r.statusCode, r.json()], [413, { ok: false, error: 'payload_too_large', message: 'Too many form fields' }])
  })

  t.test('applies the limit a call passes', async (t) => {
    const r = await app.inject({ method: 'POST', url: '/small', headers: FORM, payload: 'a=1&b=2&c=3' })
    t.same([r.statusCode, r.json().message], [413, 'Too many form fields'])
  })

  t.test('answers 415 unsupported_media_type, in its own words, for a Content-Type no parser can read', async (t) => {
    // Refused by the router's content-type parsing before any reader: the same answer as a reader's refusal.
    for (const type of [';;;', 'text/', 'a b']) {
      const r = await app.inject({ method: 'POST', url: '/form', headers: { 'content-type': type }, payload: 'a=1' })
      t.same(
        [r.statusCode, r.json()],
        [415, { ok: false, error: 'unsupported_media_type', message: 'Unsupported content type' }],
        type,
      )
    }
  })

  t.test('answers 415 for another content type', async (t) => {
    const r = await app.inject({
      method: 'POST',
      url: '/form',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    })
    t.same(
      [r.statusCode, r.json()],
      [415, { ok: false, error: 'unsupported_media_type', message: 'Unsupported content type' }],
    )
  })
})

t.test('Request.stream', async (t) => {
  const seen: string[] = []
  const app = build(
    t,
    (app) => {
      app.use('/s', stream_body())
      app.post('/s/count', async (req, res) => {
        let n = 0
        for await (const chunk of req.stream()) n += (chunk as Buffer).length
        res.json('bytes', n)
      })
      app.post('/s/twice', (req, res) => {
        req.stream().resume()
        try {
          req.json()
        } catch (err) {
          seen.push((err as { code: string }).code)
          throw err
        }
        res.json('ok', true)
      })
      app.post('/s/json', (req, res) => res.json('is_object', req.json().is_object()))
      app.post('/buffered', async (req, res) => {
        let n = 0
        for await (const chunk of req.stream()) n += (chunk as Buffer).length
        res.json(
          'bytes',
          n,
          'again',
          (() => {
            try {
              return req.bytes().length
            } catch (err) {
              return (err as { code: string }).code
            }
          })(),
        )
      })
    },
    { body_limit: 1000 },
  )

  t.test('streams the body on a stream_body route', async (t) => {
    const r = await app.inject({ method: 'POST', url: '/s/count', payload: Buffer.alloc(900) })
    t.same(r.json(), { bytes: 900 })
  })

  t.test('answers 413 when a streamed body grows over the limit', async (t) => {
    const r = await app.inject({
      method: 'POST',
      url: '/s/count',
      headers: { 'transfer-encoding': 'chunked' },
      payload: Buffer.alloc(1001),
    })
    t.same([r.statusCode, r.json()], [413, TOO_LARGE])
  })

  t.test('answers 413 before the handler when Content-Length claims more than the limit', async (t) => {
    const r = await app.inject({ method: 'POST', url: '/s/count', payload: Buffer.alloc(1001) })
    t.same([r.statusCode, r.json()], [413, TOO_LARGE])
  })

  t.test('req.json() after req.stream() throws FW_ERR_BODY_CONSUMED (a 500, logged)', async (t) => {
    const log = capture_log(t)
    const r = await app.inject({ method: 'POST', url: '/s/twice', payload: '{}' })
    t.same([r.statusCode, seen], [500, ['FW_ERR_BODY_CONSUMED']])
    t.match(log.text(), /handler failed/)
  })

  t.test('the buffered readers throw on a stream_body route', async (t) => {
    capture_log(t)
    t.equal((await app.inject({ method: 'POST', url: '/s/json', payload: '{}' })).statusCode, 500)
  })

  t.test('streams a buffered body too, and then refuses the buffered readers', async (t) => {
    const r = await app.inject({ method: 'POST', url: '/buffered', payload: 'abc' })
    t.same(r.json(), { bytes: 3, again: 'FW_ERR_BODY_CONSUMED' })
  })
})

t.test('FW_ERR_BODY_CONSUMED', async (t) => {
  /** The message `read` throws. */
  const refusal = (read: () => unknown): string => {
    try {
      read()
      return 'read'
    } catch (err) {
      return `${(err as { code: string }).code}: ${(err as Error).message}`
    }
  }
  const app = build(t, (app) => {
    app.use('/s', stream_body())
    app.post('/json', (req, res) =>
      res.json(
        'json',
        req.json().is_object(),
        'stream',
        refusal(() => req.stream()),
      ),
    )
    app.post('/body', (req, res) =>
      res.json(
        'body',
        req.body(),
        'stream',
        refusal(() => req.stream()),
      ),
    )
    app.post('/s/stream', (req, res) => {
      req.stream().resume()
      res.json(
        'json',
        refusal(() => req.json()),
        'body',
        refusal(() => req.body()),
      )
    })
  })

  t.test('names the reader that already took the body, and the one refused', async (t) => {
    // A body json() does not parse (not a JSON media type) is still taken by it.
    for (const [type, json] of [
      ['application/json', true],
      ['text/plain', false],
    ] as const) {
      const r = await app.inject({ method: 'POST', url: '/json', payload: '{}', headers: { 'content-type': type } })
      t.same(r.json(), {
        json,
        stream: 'FW_ERR_BODY_CONSUMED: req.stream() cannot read the body: req.json() already read it',
      })
    }
    const body = await app.inject({ method: 'POST', url: '/body', payload: 'x' })
    t.same(body.json(), {
      body: 'x',
      stream: 'FW_ERR_BODY_CONSUMED: req.stream() cannot read the body: req.body() already read it',
    })
    const streamed = await app.inject({ method: 'POST', url: '/s/stream', payload: '{}' })
    t.same(streamed.json(), {
      json: 'FW_ERR_BODY_CONSUMED: req.json() cannot read the body: req.stream() already read it as a stream',
      body: 'FW_ERR_BODY_CONSUMED: req.body() cannot read the body: req.stream() already read it as a stream',
    })
  })
})

t.test('Request.multipart', async (t) => {
  const saved: string[] = []
  const app = build(t, (app) => {
    app.use('/s', stream_body())
    const save: Handler = async (req, res) => {
      const form = await req.multipart({ file_size: 100 }).save()
      saved.push(...form.files.map((f) => f.path))
      res.json(
        'fields',
        form.fields,
        'files',
        form.files.map((f) => [f.name, f.filename, f.mime_type, f.size]),
      )
    }
    app.post('/save', save)
    app.post('/s/save', save)
    app.post('/parts', async (req, res) => {
      const kinds: string[] = []
      for await (const part of req.multipart())
        kinds.push(part.kind === 'field' ? `${part.name}=${part.value}` : `file:${part.name}`)
      res.json('parts', kinds)
    })
  })

  t.test('saves files under fresh names and removes them after the response', async (t) => {
    for (const url of ['/save', '/s/save']) {
      saved.length = 0
      const payload = multipart_body([
        { name: 'title', value: 'hi' },
        { name: 'doc', filename: 'a.txt', content: 'hello', type: 'text/plain' },
      ])
      const r = await app.inject({ method: 'POST', url, headers: MULTIPART_HEADERS, payload })
      t.same(r.json(), { fields: { title: 'hi' }, files: [['doc', 'a.txt', 'text/plain', 5]] }, url)
      t.equal(saved.length, 1)
      await until(() => !existsSync(saved[0]!))
      t.notOk(existsSync(saved[0]!), 'temporary file removed')
    }
  })

  t.test('never uses the client filename as a path (../, NUL, an absurd length)', async (t) => {
    for (const filename of ['../../etc/passwd', 'a\0b.txt', 'x'.repeat(5000)]) {
      saved.length = 0
      const payload = multipart_body([{ name: 'doc', filename, content: 'x' }])
      const r = await app.inject({ method: 'POST', url: '/save', headers: MULTIPART_HEADERS, payload })
      t.equal(r.statusCode, 200, JSON.stringify(filename).slice(0, 20))
      t.match(saved[0], /fw-upload-[^/]+\/1\.upload$/)
    }
  })

  t.test('answers 413 for a file over the limit and leaves no temporary file', async (t) => {
    await until(() => upload_dirs().length === 0)
    const before = upload_dirs()
    for (const url of ['/save', '/s/save']) {
      const payload = multipart_body([{ name: 'doc', filename: 'big.bin', content: Buffer.alloc(500) }])
      const r = await app.inject({ method: 'POST', url, headers: MULTIPART_HEADERS, payload })
      t.same(
        [r.statusCode, r.json()],
        [413, { ok: false, error: 'payload_too_large', message: 'File is too large' }],
        url,
      )
    }
    await until(() => upload_dirs().length <= before.length)
    t.same(upload_dirs(), before)
  })

  t.test('answers 400 malformed_body for a missing boundary or a truncated part', async (t) => {
    const MALFORMED = { ok: false, error: 'malformed_body', message: 'Malformed request body' }
    const no_boundary = await app.inject({
      method: 'POST',
      url: '/parts',
      headers: { 'content-type': 'multipart/form-data' },
      payload: 'x',
    })
    t.same([no_boundary.statusCode, no_boundary.json()], [400, MALFORMED])
    const truncated = multipart_body([{ name: 'doc', filename: 'a.txt', content: 'hello' }], { end: false }).subarray(
      0,
      90,
    )
    for (const url of ['/parts', '/s/save', '/save']) {
      const r = await app.inject({ method: 'POST', url, headers: MULTIPART_HEADERS, payload: truncated })
      t.same([r.statusCode, r.json()], [400, MALFORMED], url)
    }
  })

  t.test('answers 400 malformed_body for a part whose headers pass the parser limits, never skipping it', async (t) => {
    const MALFORMED = { ok: false, error: 'malformed_body', message: 'Malformed request body' }
    /** A body of the field a=1, then a part with `head` before its Content-Disposition, then the field c=3. */
    const body = (head: string, disposition = 'Content-Disposition: form-data; name="b"\r\n'): Buffer =>
      Buffer.concat([
        multipart_body([{ name: 'a', value: '1' }], { end: false }),
        Buffer.from(`--${BOUNDARY}\r\n${head}${disposition}\r\n2\r\n`),
        multipart_body([{ name: 'c', value: '3' }]),
      ])
    const refused: Array<[string, Buffer]> = [
      ['header bytes over 80 KiB', body(`X-Pad: ${'p'.repeat(81 * 1024)}\r\n`)],
      ['2000 header lines before the disposition', body('X-Line: 1\r\n'.repeat(2000))],
      [
        'a file part past the limit',
        body('X-Line: 1\r\n'.repeat(2000), 'Content-Disposition: form-data; name="b"; filename="b.txt"\r\n'),
      ],
      ['no Content-Disposition at all', body('Content-Type: text/plain\r\n', '')],
      ['a disposition other than form-data', body('', 'Content-Disposition: attachment; name="b"\r\n')],
      // busboy keeps these, with `name` undefined: a field `undefined` in save(), a part.name that is no string.
      ['a form-data disposition without a name', body('', 'Content-Disposition: form-data\r\n')],
      ['a file without a name', body('', 'Content-Disposition: form-data; filename="b.txt"\r\n')],
    ]
    for (const [what, payload] of refused)
      for (const url of ['/parts', '/save', '/s/save']) {
        const r = await app.inject({ method: 'POST', url, headers: MULTIPART_HEADERS, payload })
        t.same([r.statusCode, r.json()], [400, MALFORMED], `${what} ${url}`)
      }
    // Just within the limits: 1999 lines and the disposition (2000 lines), 79 KiB of header bytes.
    for (const payload of [body('X-Line: 1\r\n'.repeat(1999)), body(`X-Pad: ${'p'.repeat(79 * 1024)}\r\n`)]) {
      const r = await app.inject({ method: 'POST', url: '/parts', headers: MULTIPART_HEADERS, payload })
      t.same([r.statusCode, r.json()], [200, { parts: ['a=1', 'b=2', 'c=3'] }])
    }
  })

  t.test('answers 400 malformed_body for a part whose headers pass 2000 lines after its disposition', async (t) => {
    const MALFORMED = { ok: false, error: 'malformed_body', message: 'Malformed request body' }
    /** A body of the field a=1, then the file b.png with `lines` header lines between its disposition and its type. */
    const body = (lines: number): Buffer =>
      Buffer.concat([
        multipart_body([{ name: 'a', value: '1' }], { end: false }),
        Buffer.from(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="b"; filename="b.png"\r\n` +
            `${'X-Line: 1\r\n'.repeat(lines)}Content-Type: image/png\r\n\r\n2\r\n`,
        ),
        multipart_body([{ name: 'c', value: '3' }]),
      ])
    // The disposition, 1999 lines and the type: 2001 lines, the type past the parser's bound.
    for (const lines of [1999, 2000, 5000])
      for (const url of ['/parts', '/save', '/s/save']) {
        const r = await app.inject({ method: 'POST', url, headers: MULTIPART_HEADERS, payload: body(lines) })
        t.same([r.statusCode, r.json()], [400, MALFORMED], `${lines} lines ${url}`)
      }
    // Just within: the disposition, 1998 lines and the type (2000 lines), all kept.
    for (const url of ['/save', '/s/save']) {
      const r = await app.inject({ method: 'POST', url, headers: MULTIPART_HEADERS, payload: body(1998) })
      t.same([r.statusCode, r.json()], [200, { fields: { a: '1', c: '3' }, files: [['b', 'b.png', 'image/png', 1]] }])
    }
  })

  t.test('iterates fields and files, skipping a file left unread', async (t) => {
    const payload = multipart_body([
      { name: 'a', value: '1' },
      { name: 'f', filename: 'x', content: 'abc' },
      { name: 'b', value: '2' },
    ])
    const r = await app.inject({ method: 'POST', url: '/parts', headers: MULTIPART_HEADERS, payload })
    t.same(r.json(), { parts: ['a=1', 'file:f', 'b=2'] })
  })
})

t.test('form limits', async (t) => {
  const app = build(
    t,
    (app) => {
      app.use((_req, res, next) => {
        res.header('access-control-allow-origin', '*')
        return next()
      })
      app.use('/s', stream_body())
      app.post('/parts', async (req, res) => res.json('fields', (await req.multipart().save()).fields))
      app.post('/s/raw', async (req, res) => {
        for await (const _ of req.stream()) void _
        res.json('ok', true)
      })
    },
    { form_limits: { fields: 2, field_size: 5, files: 1 }, body_limit: 1000 },
  )

  t.test('the App options bound multipart fields, field size and files', async (t) => {
    const cases: Array<[Parameters<typeof multipart_body>[0], string]> = [
      [
        [
          { name: 'a', value: '1' },
          { name: 'b', value: '2' },
          { name: 'c', value: '3' },
        ],
        'Too many form fields',
      ],
      [[{ name: 'a', value: '123456' }], 'Form field is too large'],
      [
        [
          { name: 'f', filename: 'a', content: 'x' },
          { name: 'g', filename: 'b', content: 'y' },
        ],
        'Too many files',
      ],
    ]
    for (const [parts, message] of cases) {
      const r = await app.inject({
        method: 'POST',
        url: '/parts',
        headers: MULTIPART_HEADERS,
        payload: multipart_body(parts),
      })
      t.same([r.statusCode, r.json().message, r.headers['access-control-allow-origin']], [413, message, '*'], message)
    }
    const ok = await app.inject({
      method: 'POST',
      url: '/parts',
      headers: MULTIPART_HEADERS,
      payload: multipart_body([{ name: 'a', value: '12345' }]),
    })
    t.same(ok.json(), { fields: { a: '12345' } })
  })

  t.test('a streamed body over the limit answers 413 with the middleware headers', async (t) => {
    const r = await app.inject({
      method: 'POST',
      url: '/s/raw',
      headers: { 'transfer-encoding': 'chunked' },
      payload: Buffer.alloc(1001),
    })
    t.same([r.statusCode, r.json(), r.headers['access-control-allow-origin']], [413, TOO_LARGE, '*'])
  })

  t.test('a bad limit throws FW_ERR_BODY_BAD_OPTION naming it', async (t) => {
    t.throws(() => build(t, () => {}, { form_limits: { files: -1 } }), {
      code: 'FW_ERR_BODY_BAD_OPTION',
      message: 'form_limits: files must be an integer >= 0; got -1',
    })
  })
})

t.test('Content-Encoding', async (t) => {
  const app = build(t, (app) => {
    app.use('/s', stream_body())
    app.post('/json', (req, res) => res.json('is_object', req.json().is_object()))
    app.post('/body', (req, res) => res.json('text', req.body()))
    app.post('/form', (req, res) => res.json('form', req.form()))
    app.post('/save', async (req, res) => res.json('files', (await req.multipart().save()).files.length))
    app.post('/s/save', async (req, res) => res.json('files', (await req.multipart().save()).files.length))
    app.post('/bytes', (req, res) => res.json('bytes', gunzipSync(req.bytes()).toString()))
    app.post('/s/stream', async (req, res) => {
      const chunks: Buffer[] = []
      for await (const chunk of req.stream()) chunks.push(chunk as Buffer)
      res.json('bytes', gunzipSync(Buffer.concat(chunks)).toString())
    })
  })
  const UNSUPPORTED = { ok: false, error: 'unsupported_media_type', message: 'Unsupported content encoding' }

  t.test('the decoding readers answer 415 for a gzip body rather than reading its compressed bytes', async (t) => {
    const json = gzipSync('{"a":1}')
    const form = gzipSync('a=1')
    const mp = gzipSync(multipart_body([{ name: 'f', filename: 'f.txt', content: 'hello' }]))
    const cases: Array<[string, string, Buffer]> = [
      ['/json', 'application/json', json],
      ['/body', 'text/plain', json],
      ['/form', 'application/x-www-form-urlencoded', form],
      ['/save', MULTIPART_HEADERS['content-type'], mp],
      ['/s/save', MULTIPART_HEADERS['content-type'], mp],
    ]
    for (const [url, type, payload] of cases) {
      const headers = { 'content-type': type, 'content-encoding': 'gzip' }
      const r = await app.inject({ method: 'POST', url, headers, payload })
      t.same([r.statusCode, r.json()], [415, UNSUPPORTED], url)
    }
  })

  t.test('req.bytes() and req.stream() give the encoded bytes as sent', async (t) => {
    const headers = { 'content-type': 'application/json', 'content-encoding': 'gzip' }
    for (const url of ['/bytes', '/s/stream']) {
      const r = await app.inject({ method: 'POST', url, headers, payload: gzipSync('{"a":1}') })
      t.same([r.statusCode, r.json()], [200, { bytes: '{"a":1}' }], url)
    }
  })

  t.test('identity is no encoding', async (t) => {
    const headers = { 'content-type': 'application/json', 'content-encoding': 'Identity' }
    const r = await app.inject({ method: 'POST', url: '/json', headers, payload: '{"a":1}' })
    t.same([r.statusCode, r.json()], [200, { is_object: true }])
  })
})
