// adapters/body.ts: which requests' body chunks fw frees once it has joined them (Node's own copies of an HTTP/1
// connection's bytes), and which it must leave alone (an injected request's chunks are the caller's buffers).
import { createHash } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import { fw_plugin } from '../../adapters/plugin.js'
import { App } from '../../index.js'

/** Whether this Node can detach an ArrayBuffer (`ArrayBuffer.prototype.transfer`: Node 22 and later, not Node 20). */
const CAN_FREE = typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === 'function'

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex')

/** 256 KiB of varied bytes: its digest shows the body fw joined is the one sent. */
const BODY = Buffer.from(Array.from({ length: 256 * 1024 }, (_, i) => (i * 7 + (i >> 8)) & 0xff))

/** An App answering the size and digest of the bytes it read, mounted in a Fastify host that watches the chunks. */
async function host_app(t: Test): Promise<{ port: number; chunks: Buffer[] }> {
  const app = new App({ access_log: false })
  app.post('/sum', (req, res) => void res.json('size', req.bytes().length, 'sha256', sha256(req.bytes())))
  const host = Fastify()
  const chunks: Buffer[] = []
  // Watches the request's `data` events without listening to them (a listener would make them shared: kept whole).
  host.addHook('onRequest', async (freq) => {
    const raw = freq.raw as Readable
    const emit = raw.emit.bind(raw)
    raw.emit = ((event: string, ...args: unknown[]) => {
      if (event === 'data') chunks.push(args[0] as Buffer)
      return emit(event, ...args)
    }) as typeof raw.emit
  })
  await host.register(fw_plugin, { app })
  await host.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => host.close())
  return { port: (host.server.address() as AddressInfo).port, chunks }
}

/** POSTs `BODY` over a real HTTP/1.1 connection in 16 KiB writes and reads the JSON answer. */
function upload(port: number): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/sum',
        agent: false,
        headers: { 'content-type': 'application/octet-stream', 'content-length': String(BODY.length) },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
      },
    )
    req.on('error', reject)
    for (let at = 0; at < BODY.length; at += 16 * 1024) req.write(BODY.subarray(at, at + 16 * 1024))
    req.end()
  })
}

t.test('the chunks of an HTTP/1 body are freed once joined (Node 22 and later), the body intact', async (t) => {
  const { port, chunks } = await host_app(t)
  const r = await upload(port)
  t.same(r, { status: 200, body: { size: BODY.length, sha256: sha256(BODY) } })
  t.ok(chunks.length > 1, `the body came in ${chunks.length} chunks`)
  const lengths = chunks.map((c) => c.length)
  if (CAN_FREE) t.same(lengths, Array<number>(chunks.length).fill(0), 'every chunk freed')
  else t.equal(Buffer.concat(chunks).equals(BODY), true, 'left to the collector, whole')
})

t.test("an injected request's chunks are the caller's buffers: left whole", async (t) => {
  const app = new App({ access_log: false })
  app.post('/sum', (req, res) => void res.json('size', req.bytes().length, 'sha256', sha256(req.bytes())))
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
  const app = new App({ access_log: false })
  app.post('/sum', (req, res) => void res.json('size', req.bytes().length, 'sha256', sha256(req.bytes())))
  const host = Fastify()
  const kept: Buffer[] = []
  host.addHook('preParsing', async (_freq, _reply, payload) => {
    const copy = new Readable({ read() {} })
    payload.on('data', (chunk: Buffer) => {
      const mine = Buffer.from(chunk)
      kept.push(mine)
      copy.push(mine)
    })
    payload.on('end', () => copy.push(null))
    return copy
  })
  await host.register(fw_plugin, { app })
  await host.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => host.close())
  const r = await upload((host.server.address() as AddressInfo).port)
  t.same(r, { status: 200, body: { size: BODY.length, sha256: sha256(BODY) } })
  t.ok(kept.length > 1)
  t.equal(Buffer.concat(kept).equals(BODY), true)
})
