// What an answered request leaves alive. Node's timers capture the async context they are made in (the keep-alive
// timer of the connection, the date header's cache), and a followed request's log context is part of it: that context
// must not hold the request's body, its facades or Fastify's request, or every idle keep-alive connection keeps its
// last request, body included, until its timer goes. Its own file, in its own process: it follows every request's
// context for good, as tracing or a `context()` call does.
import http from 'node:http'
import { once } from 'node:events'
import { setImmediate as tick } from 'node:timers/promises'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import t from 'tap'
import { follow_context } from '../../lib/log/context.js'
import { listening } from '../helpers/build.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/** Collects until nothing more goes: a few full collections with the event loop turning between them. */
async function collect(): Promise<void> {
  for (let i = 0; i < 4; i++) {
    gc()
    await tick()
  }
}

t.test('an answered request is not kept alive by its log context', async (t) => {
  follow_context()
  let seen: { body: WeakRef<Buffer>; req: WeakRef<object>; host: WeakRef<object> } | undefined
  const { port } = await listening(
    t,
    (app) =>
      app.post('/upload', async (req, res) => {
        const body = req.bytes()
        seen = { body: new WeakRef(body), req: new WeakRef(req), host: new WeakRef(req.raw) }
        // An await, so the rest runs in the followed context, as a handler's database call would.
        await tick()
        res.json('bytes', body.length)
      }),
    { body_limit: 2 * 1024 * 1024 },
  )
  // One keep-alive connection, left open and idle after the answer: its timer was set while the request was served.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  t.teardown(() => agent.destroy())
  const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/upload', agent })
  req.end(Buffer.alloc(1024 * 1024, 0x61))
  const [res] = (await once(req, 'response')) as [http.IncomingMessage]
  let text = ''
  for await (const chunk of res) text += String(chunk)
  t.equal(res.statusCode, 200)
  t.same(JSON.parse(text), { bytes: 1024 * 1024 })
  t.equal(agent.freeSockets[Object.keys(agent.freeSockets)[0]!]?.length, 1, 'the connection is open and idle')

  await collect()
  t.equal(seen!.body.deref(), undefined, 'the 1 MiB body was collected')
  t.equal(seen!.req.deref(), undefined, "fw's Request facade was collected")
  t.equal(seen!.host.deref(), undefined, "Fastify's request was collected")
})
