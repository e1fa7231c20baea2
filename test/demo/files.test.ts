import t from 'tap'
import { setup_files } from '../../demo/files.js'
import { build } from '../helpers/build.js'
import { multipart_body, MULTIPART_HEADERS } from '../helpers/multipart.js'

t.test('files demo', async (t) => {
  const app = build(t, (app) =>
    app.group('/files', (g) => setup_files(app, g, { max_file_bytes: 100, max_files: 2, keep: 2 })),
  )
  const upload = (parts: Parameters<typeof multipart_body>[0], accept = 'application/json') =>
    app.inject({
      method: 'POST',
      url: '/files/upload',
      headers: { ...MULTIPART_HEADERS, accept },
      payload: multipart_body(parts),
    })

  t.test('stores an upload, lists it and serves it for download', async (t) => {
    const r = await upload([{ name: 'file', filename: '../a b€.txt', content: 'hello', type: 'text/plain' }])
    t.same([r.statusCode, r.json()], [201, { ok: true, stored: 1 }])
    const list = (await app.inject({ url: '/files/list' })).json().files as Array<{
      id: string
      filename: string
      size: number
    }>
    t.same(
      list.map((f) => [f.filename, f.size]),
      [['a b€.txt', 5]],
    )
    const dl = await app.inject({ url: `/files/download/${list[0]!.id}` })
    t.same(
      [dl.statusCode, dl.body, dl.headers['content-disposition']],
      [200, 'hello', "attachment; filename*=UTF-8''a%20b%E2%82%AC.txt"],
    )
  })

  t.test('a form post from a browser goes back to the page, which lists the file', async (t) => {
    const r = await upload([{ name: 'file', filename: 'page.txt', content: 'x' }], 'text/html')
    t.same([r.statusCode, r.headers.location], [303, '/files/'])
    const page = await app.inject({ url: '/files' })
    t.match(page.body, /action="\/files\/upload"/)
    t.match(page.body, /page\.txt/)
  })

  t.test('answers 413 for a file over the limit or too many files', async (t) => {
    const big = await upload([{ name: 'file', filename: 'big', content: Buffer.alloc(101) }])
    t.same([big.statusCode, big.json().message], [413, 'File is too large'])
    const many = await upload([1, 2, 3].map((i) => ({ name: 'file', filename: `f${i}`, content: 'x' })))
    t.same([many.statusCode, many.json().message], [413, 'Too many files'])
  })

  t.test('keeps the newest files only, and answers 404 for an unknown id', async (t) => {
    await upload([
      { name: 'file', filename: 'n1', content: '1' },
      { name: 'file', filename: 'n2', content: '2' },
    ])
    const list = (await app.inject({ url: '/files/list' })).json().files as Array<{ filename: string }>
    t.same(
      list.map((f) => f.filename),
      ['n1', 'n2'],
    )
    t.equal((await app.inject({ url: '/files/download/nope' })).statusCode, 404)
  })
})
