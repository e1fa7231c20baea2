import { PassThrough } from 'node:stream'
import t from 'tap'
import { ERR_BODY_TOO_LARGE } from '../../../lib/body/errors.js'
import { declared_too_large, read_whole } from '../../../lib/body/read.js'

/** Reads `source` with `read_whole`, as a promise of what `done` got. */
function read(source: PassThrough, limit: number): Promise<{ err: Error | null; body: Buffer | undefined }> {
  return new Promise((resolve) => read_whole(source, limit, (err, body) => resolve({ err, body })))
}

t.test('read_whole', async (t) => {
  t.test('gives the chunks joined, and one chunk as it came', async (t) => {
    const two = new PassThrough()
    const pending = read(two, 10)
    two.write('abc')
    two.end('def')
    t.same(await pending, { err: null, body: Buffer.from('abcdef') })
    const one = new PassThrough()
    const chunk = Buffer.from('xyz')
    const single = read(one, 3)
    one.end(chunk)
    t.equal((await single).body, chunk)
  })

  t.test('refuses with FW_ERR_BODY_TOO_LARGE past the limit, pauses the stream and stops listening', async (t) => {
    const source = new PassThrough()
    const pending = read(source, 4)
    source.write('abcde')
    const { err, body } = await pending
    t.match(err, { code: ERR_BODY_TOO_LARGE.code, message: "request body exceeds the route's limit of 4 bytes" })
    t.equal(body, undefined)
    t.equal(source.isPaused(), true)
    t.same([source.listenerCount('data'), source.listenerCount('end'), source.listenerCount('error')], [0, 0, 0])
  })

  t.test('passes on the stream error of a client that went away', async (t) => {
    const source = new PassThrough()
    const pending = read(source, 100)
    source.write('ab')
    source.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }))
    t.match((await pending).err, { code: 'ECONNRESET' })
  })
})

t.test('declared_too_large', async (t) => {
  t.test('is true only for a declared length over the limit', async (t) => {
    t.same(
      [declared_too_large('11', 10), declared_too_large('10', 10), declared_too_large(undefined, 10)],
      [true, false, false],
    )
  })
})
