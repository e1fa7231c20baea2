// adapters/body.ts: which requests' body chunks fw frees once it has joined them (Node's own copies of an HTTP/1
// connection's bytes), and which it must leave alone (an injected request's chunks are the caller's buffers).
import { createHash } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { fw_plugin } from '../../adapters/plugin.js'
import { App } from '../../index.js'
import { send } from '../helpers/http.js'

/** Whether this Node can detach an ArrayBuffer (`ArrayBuffer.prototype.transfer`: Node 22 and later, not Node 20). */
const CAN_FREE = typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === 'function'

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex')

/** 256 KiB of varied bytes: its digest shows the body fw joined is the one sent. */
const BODY = Buffer.from(Array.from({ length: 256 * 1024 }, (_, i) => (i * 7 + (i >> 8)) & 0xff))

/** An App answering the size and digest of the bytes it read. */
function sum_app(): App {
  const app = new App({ access_log: false })
  app.post('/sum', (req, res) => void res.json('size', req.bytes().length, 'sha256', sha256(req.bytes())))
  return app
}

/** `app` mounted in a Fastify host listening on a port, `setup` run on the host first; the host's port. */
async function in_host(t: Test, app: App, setup: (host: FastifyInstance) => void): Promise<number> {
  const host = Fastify()
  setup(host)
  await host.register(fw_plugin, { app })
  await host.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => host.close())
  return (host.server.address() as AddressInfo).port
}

/** POSTs `BODY` over a real HTTP/1.1 connection; the status and the JSON answer. */
async function upload(port: number): Promise<{ status: number; body: unknown }> {
  const headers = { 'content-type': 'application/octet-stream', 'content-length': String(BODY.length) }
  const r = await send(port, { method: 'POST', path: '/sum', headers, body: BODY })
  return { status: r.status, body: JSON.parse(r.body) }
}

t.test('the chunks of an HTTP/1 body are freed once joined (Node 22 and later), the body intact', async (t) => {
  const chunks: Buffer[] = []
  // Watches the request's `data` events without listening to them (a listener would make them shared: kept whole).
  const port = await in_host(t, sum_app(), (host) =>
    host.addHook('onRequest', async (freq) => {
      const raw = freq.raw as Readable
      const emit = raw.emit.bind(raw)
      raw.emit = ((event: string, ...args: unknown[]) => {
        if (event === 'data') chunks.push(args[0] as Buffer)
        return emit(event, ...args)
      }) as typeof raw.emit
    }),
  )
  const r = await upload(port)
  t.same(r, { status: 200, body: { size: BODY.length, sha256: sha256(BODY) } })
  t.ok(chunks.length > 1, `the body came in ${chunks.length} chunks`)
  const lengths = chunks.map((c) => c.length)
  if (CAN_FREE) t.same(lengths, Array<number>(chunks.length).fill(0), 'every chunk freed')
  else t.equal(Buffer.concat(chunks).equals(BODY), true, 'left to the collector, whole')
})

t.test("an injected request's chunks are the caller's buffers: left whole", async (t) => {
  const app = sum_app()
  t.teardown(() => app.close())
  // Each its own ArrayBuffer, as the HTTP/1 parser's copies are: nothing but their origin tells them apart.
  const parts = [0, 1, 2, 3].map((i) => Buffer.from(BODY.subarray(i * 65536, (i + 1) * 65536)))
  t.equal(parts[0]!.buffer.byteLength, parts[0]!.length)
  const r = await app.inject({
    method: 'POST',
    url: '/sum',
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(BODY.length) },
    payload: Readable.from(parts),
  })
  t.same(r.json(), { size: BODY.length, sha256: sha256(BODY) })
  t.same(
    parts.map((p) => p.length),
    [65536, 65536, 65536, 65536],
  )
  t.equal(Buffer.concat(parts).equals(BODY), true)
})

t.test("a body a preParsing hook replaced is not freed: its chunks are the hook stream's", async (t) => {
  const kept: Buffer[] = []
  const port = await in_host(t, sum_app(), (host) =>
    host.addHook('preParsing', async (_freq, _reply, payload) => {
      const copy = new Readable({ read() {} })
      payload.on('data', (chunk: Buffer) => {
        const mine = Buffer.from(chunk)
        kept.push(mine)
        copy.push(mine)
      })
      payload.on('end', () => copy.push(null))
      return copy
    }),
  )
  const r = await upload(port)
  t.same(r, { status: 200, body: { size: BODY.length, sha256: sha256(BODY) } })
  t.ok(kept.length > 1)
  t.equal(Buffer.concat(kept).equals(BODY), true)
})
