// Bodies a handler leaves partly unread, on real sockets: a multipart file skipped mid-stream, an answer sent before
// the body ended on a keep-alive connection, and `save()` failing mid-body. Every wait is bounded: a hang fails in a
// second or two.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import http from 'node:http'
import { createRequire } from 'node:module'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Writable } from 'node:stream'
import t, { type Test } from 'tap'
import { stream_body } from '../../../lib/body/index.js'
import type { Handler } from '../../../lib/compose.js'
import { listening, type Teardown } from '../../helpers/build.js'
import { raw } from '../../helpers/http.js'
import { capture_log } from '../../helpers/log.js'
import { private_tmpdir, multipart_body, MULTIPART_HEADERS } from '../../helpers/multipart.js'

private_tmpdir()

/** A raw request with `body`, its length declared; `close: false` keeps the connection alive. */
function post(path: string, body: string | Buffer, type = 'application/octet-stream', close = true): string {
  const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\n`
  return `${head}${close ? 'Connection: close\r\n' : ''}\r\n${body.toString('latin1')}`
}

/** The same body chunked, so that only the bytes counted as they arrive can refuse it. */
function post_chunked(path: string, body: string): string {
  const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n`
  return `${head}Transfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`
}

/**
 * Writes `first` then a `GET /next` on one connection and reads until `/next` is answered, the server closes the
 * connection, or `wait_ms` passes: the status lines and Connection headers seen, and which of the three came first.
 */
function then_next(port: number, first: string, wait_ms = 1500): Promise<{ seen: string[]; by: string }> {
  return new Promise((resolve) => {
    let text = ''
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(first)
      socket.write('GET /next HTTP/1.1\r\nHost: x\r\n\r\n')
    })
    const timer = setTimeout(() => done('timeout'), wait_ms)
    const done = (by: string): void => {
      clearTimeout(timer)
      socket.destroy()
      const seen = [...text.matchAll(/HTTP\/1\.1 \d+|^connection: [\w-]+/gim)].map((m) => m[0].toLowerCase())
      resolve({ seen, by })
    }
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => {
      text += chunk
      if (text.endsWith('second answer')) done('next answered')
    })
    socket.on('error', () => undefined)
    socket.on('close', () => done('server closed'))
  })
}

t.test('Request.multipart with a file left partly read', async (t) => {
  const { port } = await listening(
    t,
    (app) => {
      app.use('/s', stream_body())
      const parts: Handler = async (req, res) => {
        const mode = req.param('mode')
        const seen: string[] = []
        for await (const part of req.multipart()) {
          if (part.kind === 'field') {
            seen.push(`${part.name}=${part.value}`)
            continue
          }
          if (mode === 'break') {
            for await (const chunk of part.stream) {
              seen.push(`${part.name}:${(chunk as Buffer).subarray(0, 4).toString()}`)
              break
            }
          } else if (mode === 'destroy') part.stream.destroy()
          else seen.push(`${part.name}:unread`)
        }
        res.json('seen', seen)
      }
      app.post('/b/{mode}', parts)
      app.post('/s/{mode}', parts)
    },
    { body_limit: 4 * 1024 * 1024 },
  )
  // A file far larger than the buffers between the socket and the handler: unread, it would hold the parser.
  const body = multipart_body([
    { name: 'photo', filename: 'a.png', content: `PNG!${'x'.repeat(1024 * 1024)}`, type: 'image/png' },
    { name: 'title', value: 'hello' },
  ])
  const type = MULTIPART_HEADERS['content-type']

  t.test('skips the rest of a file the handler destroyed or stopped reading, then gives the next part', async (t) => {
    const cases: Array<[string, string[]]> = [
      ['/b/break', ['photo:PNG!', 'title=hello']],
      ['/b/destroy', ['title=hello']],
      ['/b/unread', ['photo:unread', 'title=hello']],
      ['/s/break', ['photo:PNG!', 'title=hello']],
      ['/s/destroy', ['title=hello']],
      ['/s/unread', ['photo:unread', 'title=hello']],
    ]
    for (const [path, seen] of cases) {
      const r = await raw(port, post(path, body, type), 2000)
      t.same([r.status, r.body], [200, JSON.stringify({ seen })], path)
    }
  })
})

t.test('stream_body answers sent before the body ended', async (t) => {
  const { port } = await listening(
    t,
    (app) => {
      app.use('/up', stream_body())
      app.post('/up/refuse', (req, res) => {
        // Taken, then refused before a byte is read (a quota check, a bad header).
        req.stream()
        res.status(403).json('ok', false)
      })
      app.post('/up/count', async (req, res) => {
        let n = 0
        for await (const chunk of req.stream()) n += (chunk as Buffer).length
        res.json('n', n)
      })
      app.post('/up/first-part', async (req, res) => {
        for await (const part of req.multipart()) {
          res.json('first', part.name)
          break
        }
      })
      app.post('/up/save', async (req, res) => res.json('files', (await req.multipart().save()).files.length))
      app.get('/next', (_req, res) => void res.text('second answer'))
    },
    { body_limit: 256 * 1024 },
  )
  const data = 'x'.repeat(200 * 1024)

  t.test('close the connection, so the next request on it is never left waiting', async (t) => {
    const refused = await then_next(port, post('/up/refuse', data, undefined, false))
    t.same(refused, { seen: ['http/1.1 403', 'connection: close'], by: 'server closed' }, 'a refusal')
    const over = await then_next(port, post_chunked('/up/count', 'x'.repeat(400 * 1024)))
    t.same(over, { seen: ['http/1.1 413', 'connection: close'], by: 'server closed' }, 'the streamed 413')
    const mp = multipart_body([
      { name: 'a', value: '1' },
      { name: 'f', filename: 'f.bin', content: data },
    ])
    const first = await then_next(port, post('/up/first-part', mp, MULTIPART_HEADERS['content-type'], false))
    t.same(first, { seen: ['http/1.1 200', 'connection: close'], by: 'server closed' }, 'a multipart loop')
  })

  t.test('keep the connection alive when the handler read the whole body', async (t) => {
    const alive = { seen: ['http/1.1 200', 'connection: keep-alive', 'http/1.1 200', 'connection: keep-alive'] }
    const read = await then_next(port, post('/up/count', data, undefined, false))
    t.same(read, { ...alive, by: 'next answered' }, 'req.stream()')
    const mp = multipart_body([{ name: 'f', filename: 'f.bin', content: data }])
    const saved = await then_next(port, post('/up/save', mp, MULTIPART_HEADERS['content-type'], false))
    t.same(saved, { ...alive, by: 'next answered' }, 'req.multipart().save()')
  })

  t.test('a keep-alive client gets its next answer on a new connection', async (t) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    t.teardown(() => agent.destroy())
    const request = (method: string, path: string, body?: Buffer): Promise<string> =>
      new Promise((resolve) => {
        const req = http.request({ host: '127.0.0.1', port, method, path, agent }, (res) => {
          let text = ''
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => (text += chunk))
          res.on('end', () => resolve(`${res.statusCode} ${text}`))
        })
        req.on('error', (err) => resolve(`error ${err.message}`))
        req.setTimeout(1500, () => req.destroy(new Error('no answer')))
        req.end(body)
      })
    t.equal(await request('POST', '/up/refuse', Buffer.alloc(data.length)), '403 {"ok":false}')
    t.equal(await request('GET', '/next'), '200 second answer')
  })
})

/** Waits, 20 ms at a time for at most 2 s, until `ok()` holds. */
async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !ok(); i++) await new Promise((resolve) => setTimeout(resolve, 20))
}

/** Every multipart parser the App makes from now until the test ends (the real `@fastify/busboy` ones, recorded). */
function record_parsers(t: Teardown): Writable[] {
  const made: Writable[] = []
  const real = busboy_module.Busboy
  busboy_module.Busboy = (...args) => {
    const bb = real(...args)
    made.push(bb)
    return bb
  }
  t.teardown(() => void (busboy_module.Busboy = real))
  return made
}
const busboy_module = createRequire(import.meta.url)('@fastify/busboy') as {
  Busboy: (...args: unknown[]) => Writable
}

/** What is left of a parser: still fed the body, still heard, or destroyed. */
const parser_state = (bb: Writable): Record<string, boolean> => ({
  destroyed: bb.destroyed,
  piped: bb.listenerCount('unpipe') > 0,
  listened: bb.listenerCount('file') + bb.listenerCount('field') > 0,
})

t.test('Multipart.save() failing part way', async (t) => {
  const log = capture_log(t)
  const parsers = record_parsers(t)
  const base = mkdtempSync(join(tmpdir(), 'fw-save-fail-'))
  t.teardown(() => rmSync(base, { recursive: true, force: true }))
  const saved_tmpdir = process.env.TMPDIR
  t.teardown(() => void (process.env.TMPDIR = saved_tmpdir))
  const { port } = await listening(
    t,
    (app) => {
      app.use('/s', stream_body())
      const save: Handler = async (req, res) => res.json('files', (await req.multipart().save()).files.length)
      app.post('/save', save)
      app.post('/s/save', save)
      app.get('/next', (_req, res) => void res.text('second answer'))
    },
    { body_limit: 4 * 1024 * 1024 },
  )
  const type = MULTIPART_HEADERS['content-type']
  const INTERNAL = JSON.stringify({ ok: false, error: 'internal_error', message: 'Internal Server Error' })
  const upload_dirs = (dir: string): string[] => readdirSync(dir).filter((n) => n.startsWith('fw-upload-'))
  // Nine small files, then a 1 MiB one that cannot be written, then a field: the failure comes mid-body.
  const body = multipart_body([
    ...Array.from({ length: 9 }, (_, i) => ({ name: `f${i + 1}`, filename: `${i + 1}.txt`, content: 'x' })),
    { name: 'f10', filename: '10.txt', content: Buffer.alloc(1024 * 1024, 'y') },
    { name: 'title', value: 'after' },
  ])
  const keep_alive = { seen: ['http/1.1 500', 'connection: keep-alive', 'http/1.1 200', 'connection: keep-alive'] }
  const closed = { seen: ['http/1.1 500', 'connection: close'], by: 'server closed' }

  /** Posts `body` to both routes and checks the answers, what the next request on the connection gets, and the rest. */
  async function fails_cleanly(t: Test, dir: string, error: RegExp, parsers_per_request: number): Promise<void> {
    process.env.TMPDIR = dir
    for (const url of ['/save', '/s/save']) {
      parsers.length = 0
      let answer = ''
      const socket = net.connect(port, '127.0.0.1')
      // The answer itself, on a connection of its own.
      await new Promise<void>((resolve) => {
        socket.setEncoding('latin1')
        socket.on('data', (chunk: string) => (answer += chunk))
        socket.on('close', () => resolve())
        socket.on('error', () => undefined)
        socket.write(post(url, body, type))
      })
      t.equal(answer.slice(answer.indexOf('\r\n\r\n') + 4), INTERNAL, `${url}: the answer`)
      // A buffered body was read whole: the connection stays usable. A streamed one is left unread: it is closed.
      const next = await then_next(port, post(url, body, type, false))
      t.same(next, url === '/save' ? { ...keep_alive, by: 'next answered' } : closed, `${url}: the next request`)
      if (existsSync(dir)) {
        await until(() => upload_dirs(dir).length === 0)
        t.same(upload_dirs(dir), [], `${url}: no temporary folder or file is left`)
      }
      await until(() => parsers.every((bb) => bb.destroyed))
      // Two requests per route (the answer, then the one followed by /next); a folder that cannot be made comes first.
      t.same(
        parsers.map(parser_state),
        Array.from({ length: parsers_per_request * 2 }, () => ({ destroyed: true, piped: false, listened: false })),
        `${url}: every parser made was unpiped, unheard and destroyed`,
      )
    }
    t.match(log.text(), error)
  }

  t.test('the temporary folder cannot be made (its parent does not exist)', async (t) => {
    const missing = join(base, 'missing')
    await fails_cleanly(t, missing, /handler failed.*ENOENT/, 0)
    t.notOk(existsSync(missing), 'the folder was not made either')
  })

  t.test('the tenth file cannot be written, after nine were', async (t) => {
    // A TMPDIR of 4069 bytes: the upload folder and `1.upload` to `9.upload` in it fit Linux's 4096-byte path limit,
    // `10.upload` does not, so its open fails (ENAMETOOLONG) with nine files already on disk.
    let dir = base
    while (dir.length < 4069 - 201) dir = join(dir, 'd'.repeat(200))
    dir = join(dir, 'e'.repeat(4069 - dir.length - 1))
    mkdirSync(dir, { recursive: true })
    t.equal(dir.length, 4069)
    await fails_cleanly(
      t,
      dir,
      /handler failed.*ENAMETOOLONG: name too long, open '[^']+\/fw-upload-\w+\/10\.upload'/,
      1,
    )
  })
})
