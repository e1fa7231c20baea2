// Clients that go away in the middle of an upload: nothing may stay open (files, temporary folders, timers, listeners).
import { readdirSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import t from 'tap'
import { stream_body } from '../../../lib/body/index.js'
import { gate, listening } from '../../helpers/build.js'
import { capture_log, logged_client_gone } from '../../helpers/log.js'
import { private_tmpdir, BOUNDARY } from '../../helpers/multipart.js'

private_tmpdir()

const tick = (ms = 20): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
/** Waits, 20 ms at a time, until `done()` or `tries` ticks have passed. */
async function until(done: () => boolean, tries = 100): Promise<void> {
  for (let i = 0; i < tries && !done(); i++) await tick()
}
const upload_dirs = (): number => readdirSync(tmpdir()).filter((n) => n.startsWith('fw-upload-')).length
/** Open file descriptors of this process (files and sockets alike). */
const open_handles = (): number => readdirSync('/proc/self/fd').length

/** Sends the head of a request and part of its body, then drops the connection. */
function drop_mid_upload(port: number, path: string, headers: string, partial: string): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\n${headers}\r\n\r\n${partial}`)
      setTimeout(() => socket.destroy(), 50)
    })
    socket.on('close', () => resolve())
    socket.on('error', () => undefined)
  })
}

// A temporary folder of this file's own: tap runs test files in parallel, and another one's uploads must not count
// here.
process.env.TMPDIR = t.testdir()

t.test('a client disconnecting mid-upload', async (t) => {
  capture_log(t)
  const settled: string[] = []
  const held = gate()
  const { app, port } = await listening(t, (app) => {
    app.use('/s', stream_body())
    app.post('/s/save', async (req, res) => {
      try {
        res.json('files', (await req.multipart().save()).files.length)
      } finally {
        settled.push('save')
      }
    })
    app.post('/s/raw', async (req, res) => {
      try {
        for await (const _ of req.stream()) void _
        res.json('ok', true)
      } finally {
        settled.push('raw')
      }
    })
    app.post('/s/late', async (req, res) => {
      // Starts reading only after the client has gone: the body must fail rather than wait forever.
      await new Promise((resolve) => setTimeout(resolve, 300))
      try {
        res.json('files', (await req.multipart().save()).files.length)
      } catch (err) {
        settled.push(`late ${(err as { code?: string }).code}`)
        throw err
      }
    })
    app.post('/s/held', async (req, res) => {
      // Takes the stream, then waits: the client goes away while nobody listens to it.
      const body = req.stream()
      await held.promise
      try {
        for await (const _ of body) void _
        res.json('ok', true)
      } catch (err) {
        settled.push(`held ${(err as { code?: string }).code}`)
        throw err
      }
    })
    app.post('/buffered', (req, res) => res.json('bytes', req.bytes().length))
  })
  const server = app.fastify.server

  t.test('leaves no temporary folder, file handle or listener behind', async (t) => {
    const before = { dirs: upload_dirs(), handles: open_handles(), listeners: server.listenerCount('request') }
    const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`
    const type = `Content-Type: multipart/form-data; boundary=${BOUNDARY}`
    await drop_mid_upload(port, '/s/save', `${type}\r\nContent-Length: 100000`, head + 'x'.repeat(5000))
    await drop_mid_upload(port, '/s/raw', 'Content-Length: 100000', 'y'.repeat(5000))
    await drop_mid_upload(port, '/buffered', 'Content-Length: 100000', 'z'.repeat(5000))
    await until(() => settled.length >= 2, 250)
    t.same(settled.sort(), ['raw', 'save'], 'both handlers finished')
    const now = (): Record<string, number> => ({
      dirs: upload_dirs(),
      handles: open_handles(),
      listeners: server.listenerCount('request'),
    })
    // A leak is a folder, descriptor or listener more than before; descriptors may also be fewer (one the process held
    // for its own start-up closing meanwhile, as Node 24 does), which is no leak.
    const leaked = (n: Record<string, number>): boolean =>
      n.dirs !== before.dirs || n.handles! > before.handles || n.listeners !== before.listeners
    await until(() => !leaked(now()), 250)
    const after = now()
    t.same({ dirs: after.dirs, listeners: after.listeners }, { dirs: before.dirs, listeners: before.listeners })
    t.ok(
      after.handles! <= before.handles,
      `no file descriptor left open (${before.handles} before, ${after.handles} after)`,
    )
  })

  t.test('a handler that reads after the client left fails at once and leaves no folder', async (t) => {
    const before = upload_dirs()
    const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"; filename="a.bin"\r\n\r\n`
    const type = `Content-Type: multipart/form-data; boundary=${BOUNDARY}`
    settled.length = 0
    await drop_mid_upload(port, '/s/late', `${type}\r\nContent-Length: 100000`, head + 'x'.repeat(5000))
    await until(() => settled.length >= 1)
    t.same(settled, ['late ECONNRESET'], 'the reader failed with the client gone')
    await until(() => upload_dirs() === before)
    t.equal(upload_dirs(), before, 'no temporary folder is left')
  })

  t.test('a stream taken but not yet read when the client leaves fails its reader, not the process', async (t) => {
    settled.length = 0
    const uncaught: Error[] = []
    const on_uncaught = (err: Error): void => void uncaught.push(err)
    // tap's own handler would end the run; this test counts what escapes instead.
    const tap_handlers = process.listeners('uncaughtException')
    process.removeAllListeners('uncaughtException')
    process.on('uncaughtException', on_uncaught)
    t.teardown(() => {
      process.off('uncaughtException', on_uncaught)
      for (const fn of tap_handlers) process.on('uncaughtException', fn)
    })
    await drop_mid_upload(port, '/s/held', 'Content-Length: 100000', 'y'.repeat(5000))
    await tick(200)
    held.open()
    await until(() => settled.length >= 1)
    t.same(
      uncaught.map((e) => e.message),
      [],
      'no error escaped to the process',
    )
    t.same(settled, ['held ECONNRESET'], 'the reader failed with the client gone')
  })

  t.test('the server still answers afterwards', async (t) => {
    const r = await app.inject({ method: 'POST', url: '/buffered', payload: 'abc' })
    t.same(r.json(), { bytes: 3 })
  })
})

t.test('a client gone before a buffered route saves its upload', async (t) => {
  capture_log(t)
  const settled: string[] = []
  const { port } = await listening(t, (app) => {
    app.post('/late', async (req, res) => {
      // The body was read whole before the chain; the client leaves while the handler is busy with something else.
      await tick(200)
      try {
        const { files } = await req.multipart().save()
        settled.push(`saved ${files.length}`)
        res.json('files', files.length)
      } catch (err) {
        settled.push(`failed ${(err as { code?: string }).code}`)
        throw err
      }
    })
  })
  let body = ''
  for (let i = 0; i < 10; i++)
    body += `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f${i}"; filename="a.bin"\r\n\r\n${'x'.repeat(100_000)}\r\n`
  body += `--${BOUNDARY}--\r\n`
  const head = `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${body.length}`

  t.test('saves it whole, then removes every file and the folder', async (t) => {
    const before = upload_dirs()
    // The folder removed while the files were written was a race, lost most of the time but not always: three tries.
    for (let i = 0; i < 3; i++) await drop_mid_upload(port, '/late', head, body)
    await until(() => settled.length >= 3, 250)
    t.same(settled, ['saved 10', 'saved 10', 'saved 10'], 'no file failed to be written')
    await until(() => upload_dirs() === before, 250)
    t.equal(upload_dirs(), before, 'no temporary folder is left')
  })
})

t.test('a client gone mid-body on a stream_body route is logged as the client gone, not as a failure', async (t) => {
  const out = capture_log(t)
  const failed: string[] = []
  const { port } = await listening(
    t,
    (app) => {
      app.use('/s', stream_body())
      app.post('/s/raw', async (req, res) => {
        try {
          for await (const _ of req.stream()) void _
          res.json('ok', true)
        } catch (err) {
          failed.push(String((err as { code?: string }).code))
          throw err
        }
      })
    },
    { access_log: 'info' },
  )
  await drop_mid_upload(port, '/s/raw', 'Content-Length: 100000', 'y'.repeat(5000))
  await until(() => failed.length >= 1 && out.lines().some((l) => l.includes('client went away')))
  t.same(failed, ['ECONNRESET'], 'the reader failed with the client gone')
  logged_client_gone(t, out.lines())
})
