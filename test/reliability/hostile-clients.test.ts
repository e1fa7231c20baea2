// Slow and hostile clients against a real fw server in its own process: slowloris (headers a byte a second), a slow
// body, clients that never read a large answer, and thousands of idle keep-alive connections. Meanwhile a probe client
// must keep getting quick answers, and the server's memory must stay within a bound and come back down when the clients
// leave.
import { readFileSync } from 'node:fs'
import net from 'node:net'
import t from 'tap'
import type { Test } from 'tap'
import { start_child_server, type ChildServer } from '../helpers/child-server.js'
import { send } from '../helpers/http.js'

const IDLE = Number(process.env.FW_IDLE_CONNECTIONS ?? 10_000)
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Resident memory of a process in MiB. */
function rss_mib(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
  return Number(kb) / 1024
}

/** GET /ok every 50 ms until stopped; the latency of each answer (-1 for an answer other than 200). */
function probe(port: number): { stop: () => Promise<number[]> } {
  const ms: number[] = []
  let running = true
  const loop = (async () => {
    while (running) {
      const started = performance.now()
      const r = await send(port, { path: '/ok' }).catch(() => ({ status: 0 }))
      ms.push(r.status === 200 ? performance.now() - started : -1)
      await sleep(50)
    }
  })()
  return {
    stop: async () => {
      running = false
      await loop
      return ms
    },
  }
}

/** A connection opened and kept; resolves once connected. */
function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s))
    s.on('error', reject)
  })
}

/** Writes `text` one byte a second on each socket until `stop` is set. */
function trickle(sockets: net.Socket[], text: string, state: { stop: boolean }): void {
  sockets.forEach(
    (s, k) =>
      void (async () => {
        await sleep((k * 37) % 1000)
        for (let i = 0; i < text.length && !state.stop && !s.destroyed; i++) {
          s.write(text[i]!)
          await sleep(1000)
        }
      })(),
  )
}

/**
 * Opens `count` connections, sends `head` at once on each, then `text` a byte a second; resolves to the function that
 * stops them and drops the connections.
 */
async function trickling(port: number, count: number, head: string, text: string): Promise<() => void> {
  const sockets = await Promise.all(Array.from({ length: count }, () => connect(port)))
  if (head !== '') for (const s of sockets) s.write(head)
  const state = { stop: false }
  trickle(sockets, text, state)
  return () => {
    state.stop = true
    for (const s of sockets) s.destroy()
  }
}

function summary(ms: number[]): string {
  const ok = ms.filter((m) => m >= 0).sort((a, b) => a - b)
  return `${ok.length} answers, p50 ${ok[Math.floor(ok.length / 2)]?.toFixed(1)} ms, max ${ok.at(-1)?.toFixed(1)} ms, failures ${ms.length - ok.length}`
}

async function hostile_phase(
  t: Test,
  server: ChildServer,
  name: string,
  open: () => Promise<() => void>,
  rss_limit_mib: number,
): Promise<void> {
  const pid = server.child.pid!
  const before = rss_mib(pid)
  const close = await open()
  // The probe starts once the hostile clients are in place: it measures the server while they are there, not this
  // process opening thousands of sockets.
  await sleep(1500)
  const p = probe(server.port)
  await sleep(2000)
  const during = rss_mib(pid)
  const ms = await p.stop()
  close()
  await sleep(500)
  t.notOk(ms.includes(-1), `${name}: every probe request is answered (${summary(ms)})`)
  t.ok(Math.max(...ms) < 2000, `${name}: no probe request waits 2 s`)
  t.ok(
    during - before < rss_limit_mib,
    `${name}: RSS ${before.toFixed(0)} -> ${during.toFixed(0)} MiB (bound ${rss_limit_mib} MiB more)`,
  )
  const stats = await send(server.port, { path: '/stats' })
  const heap = (JSON.parse(stats.body) as { heap_used: number }).heap_used / 1048576
  t.comment(`${name}: after the clients left, RSS ${rss_mib(pid).toFixed(0)} MiB, heap used ${heap.toFixed(0)} MiB`)
}

// Four phases of about 5 s, plus opening 10,000 connections on a shared machine: more than tap's default minute.
t.setTimeout(150_000)

t.test('hostile clients', async (t) => {
  const server = await start_child_server(t, 'test/reliability/fixtures/reliability-app.ts')
  for (let i = 0; i < 200; i++) await send(server.port, { path: '/ok' })
  const { port } = server

  await hostile_phase(
    t,
    server,
    'slowloris: 300 connections sending headers a byte a second',
    () => trickling(port, 300, '', 'GET /ok HTTP/1.1\r\nHost: localhost\r\nX-Padding: ' + 'a'.repeat(100)),
    40,
  )

  await hostile_phase(
    t,
    server,
    'slow body: 100 uploads of 1 MB sent a byte a second',
    () =>
      trickling(
        port,
        100,
        'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000000\r\n\r\n',
        'x'.repeat(100),
      ),
    40,
  )

  await hostile_phase(
    t,
    server,
    'never read: 10 clients asking for 4 MiB and not reading it',
    async () => {
      const sockets = await Promise.all(Array.from({ length: 10 }, () => connect(port)))
      for (const s of sockets) {
        s.pause()
        s.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n')
      }
      return () => {
        for (const s of sockets) s.destroy()
      }
    },
    10 * 4 * 2 + 40,
  )

  await hostile_phase(
    t,
    server,
    `${IDLE} idle keep-alive connections`,
    async () => {
      const sockets: net.Socket[] = []
      for (let i = 0; i < IDLE; i += 500) {
        const batch = await Promise.all(Array.from({ length: Math.min(500, IDLE - i) }, () => connect(port)))
        for (const s of batch) s.write('GET /ok HTTP/1.1\r\nHost: x\r\n\r\n')
        sockets.push(...batch)
      }
      await sleep(500)
      return () => {
        for (const s of sockets) s.destroy()
      }
    },
    400,
  )

  server.child.kill('SIGTERM')
  t.same(await server.exited, [0, null], 'the server then stops cleanly')
})
