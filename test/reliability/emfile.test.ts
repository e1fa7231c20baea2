// File descriptors exhausted (EMFILE): a server run with a limit of 128 descriptors gets 400 connections at once; it
// refuses what it cannot take and keeps running, and answers normally once the connections close.
import { readdirSync } from 'node:fs'
import net from 'node:net'
import t from 'tap'
import { start_child_server } from '../helpers/child-server.js'
import { send } from '../helpers/http.js'

const LIMIT = 128
const CONNECTIONS = 400

/** Opens `n` connections, each sending the start of a request; resolves once each connected or failed. */
async function flood(port: number, n: number): Promise<net.Socket[]> {
  const sockets: net.Socket[] = []
  await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<void>((resolve) => {
          const s = net.connect(port, '127.0.0.1', () => {
            s.write('GET /ok HTTP/1.1\r\nHost: x\r\n')
            resolve()
          })
          s.on('error', () => resolve())
          sockets.push(s)
        }),
    ),
  )
  return sockets
}

t.test('a server out of file descriptors (EMFILE)', async (t) => {
  const server = await start_child_server(t, 'test/reliability/fixtures/reliability-app.ts', {
    wrapper: ['prlimit', `--nofile=${LIMIT}`],
  })
  const sockets = await flood(server.port, CONNECTIONS)
  await new Promise((resolve) => setTimeout(resolve, 500))
  const open_fds = readdirSync(`/proc/${server.child.pid}/fd`).length
  t.ok(open_fds >= LIMIT - 2, `the server holds ${open_fds} descriptors: the limit was reached`)
  t.equal(
    server.child.exitCode,
    null,
    `the server is still running with ${CONNECTIONS} connections against a limit of ${LIMIT}`,
  )
  for (const s of sockets) s.destroy()
  await new Promise((resolve) => setTimeout(resolve, 300))
  const answers = await Promise.all(Array.from({ length: 20 }, () => send(server.port, { path: '/ok' })))
  t.same(new Set(answers.map((a) => a.status)), new Set([200]), 'once they closed, new requests are answered')
  server.child.kill('SIGTERM')
  t.same(await server.exited, [0, null], 'and it still stops cleanly')
})
