import { Readable } from 'node:stream'
import t from 'tap'
import { held_to_length } from '../../../lib/stream/index.js'

/** What `stream` gives: its bytes, and the error it failed with, if any. */
async function outcome(stream: Readable): Promise<{ bytes: string; error: string | undefined }> {
  let bytes = ''
  stream.on('data', (c: Buffer) => (bytes += c.toString()))
  const error = await new Promise<string | undefined>((resolve) => {
    stream.on('end', () => resolve(undefined))
    stream.on('error', (err) => resolve(err.message))
  })
  return { bytes, error }
}

t.test('held_to_length', async (t) => {
  t.test('passes a source of the declared length on as it is, and ends', async (t) => {
    const r = await outcome(held_to_length(Readable.from([Buffer.from('abc'), Buffer.from('de')]), 5))
    t.same(r, { bytes: 'abcde', error: undefined })
  })

  t.test('fails at the end of a source shorter than declared (a file that shrank)', async (t) => {
    const r = await outcome(held_to_length(Readable.from([Buffer.from('abc')]), 5))
    t.same(r, { bytes: 'abc', error: 'the file ended after 3 of 5 bytes: it shrank while it was sent' })
  })

  t.test("fails with the source's own error when reading fails midway", async (t) => {
    let reads = 0
    const source = new Readable({
      read() {
        if (reads++ > 0) return
        this.push(Buffer.from('abc'))
        setImmediate(() => this.destroy(new Error('EIO: i/o error, read')))
      },
    })
    const r = await outcome(held_to_length(source, 5))
    t.same(r, { bytes: 'abc', error: 'EIO: i/o error, read' })
  })

  t.test('destroying it (the client went away) destroys the source', async (t) => {
    const source = new Readable({ read() {} })
    const held = held_to_length(source, 5)
    held.on('error', () => {})
    held.destroy()
    await new Promise((resolve) => source.on('close', resolve))
    t.equal(source.destroyed, true)
  })
})
