import { PassThrough } from 'node:stream'
import t from 'tap'
import { ERR_BODY_TOO_LARGE } from '../../../lib/body/errors.js'
import { declared_too_large, read_whole, release } from '../../../lib/body/read.js'

/** Reads `source` with `read_whole`, as a promise of what `done` got. */
function read(
  source: PassThrough,
  limit: number,
  owned = false,
): Promise<{ err: Error | null; body: Buffer | undefined }> {
  return new Promise((resolve) => read_whole(source, limit, (err, body) => resolve({ err, body }), owned))
}

/** Whether this Node can detach an ArrayBuffer (`ArrayBuffer.prototype.transfer`: Node 22 and later, not Node 20). */
const CAN_FREE = typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === 'function'

/** Three chunks, each the whole of its own ArrayBuffer, as Node's HTTP/1 parser makes a body's. */
const own_chunks = (): Buffer[] =>
  ['abc', 'def', 'gh'].map((text) => Buffer.from(new TextEncoder().encode(text).buffer))

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

  t.test('owned chunks: freed once joined, when the runtime can (Node 22 and later), the body intact', async (t) => {
    const chunks = own_chunks()
    const source = new PassThrough()
    const pending = read(source, 100, true)
    for (const chunk of chunks) source.write(chunk)
    source.end()
    const { err, body } = await pending
    t.equal(err, null)
    t.equal(body!.toString(), 'abcdefgh')
    t.same(
      chunks.map((c) => c.length),
      CAN_FREE ? [0, 0, 0] : [3, 3, 2],
    )
  })

  t.test('owned chunks of a failed read are freed too; one chunk given as the body is not', async (t) => {
    const chunks = own_chunks()
    const refused = new PassThrough()
    const pending = read(refused, 5, true)
    for (const chunk of chunks) refused.write(chunk)
    t.match((await pending).err, { code: ERR_BODY_TOO_LARGE.code })
    // The third was never read: the limit was passed on the second.
    t.same(
      chunks.map((c) => c.length),
      CAN_FREE ? [0, 0, 2] : [3, 3, 2],
    )
    const [only] = own_chunks()
    const one = new PassThrough()
    const single = read(one, 100, true)
    one.end(only)
    const { body } = await single
    t.equal(body, only)
    t.equal(body!.toString(), 'abc')
  })

  t.test('chunks are left whole when not owned, or when another data listener was given them', async (t) => {
    const mine = own_chunks()
    const plain = new PassThrough()
    const pending = read(plain, 100)
    for (const chunk of mine) plain.write(chunk)
    plain.end()
    t.equal((await pending).body!.toString(), 'abcdefgh')
    t.same(
      mine.map((c) => c.toString()),
      ['abc', 'def', 'gh'],
    )

    const shared = own_chunks()
    const seen: Buffer[] = []
    const watched = new PassThrough()
    const watching = read(watched, 100, true)
    watched.write(shared[0])
    // A listener that came for the second chunk and left before the end still holds it.
    const listener = (chunk: Buffer): number => seen.push(chunk)
    watched.on('data', listener)
    watched.write(shared[1])
    watched.off('data', listener)
    watched.end(shared[2])
    t.equal((await watching).body!.toString(), 'abcdefgh')
    t.same(
      seen.map((c) => c.toString()),
      ['def'],
    )
    t.same(
      shared.map((c) => c.toString()),
      ['abc', 'def', 'gh'],
    )
  })
})

t.test('release', async (t) => {
  t.test('leaves a slice of a larger ArrayBuffer, such as a pooled buffer, and what shares that buffer', async (t) => {
    const pooled = Buffer.from('pooled')
    const neighbour = Buffer.from('neighbour')
    t.equal(pooled.buffer, neighbour.buffer, "both slices of Node's pool")
    release(pooled)
    release(neighbour.subarray(0, 3))
    t.same([pooled.toString(), neighbour.toString()], ['pooled', 'neighbour'])
    const whole = Buffer.alloc(16, 1)
    release(whole.subarray(1))
    t.equal(whole.length, 16)
    release(whole)
    t.equal(whole.length, CAN_FREE ? 0 : 16)
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
