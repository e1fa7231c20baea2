// The WebSocket load client, run pinned to core 1 by bench/websocket.ts. It connects to every server given, prints
// `ready`, waits for a line on stdin, runs, and prints one JSON line { results: [{ messages, ms }] (one per server, in
// the order given), client_cpu_us }, so the servers' CPU is read around the measured part only.
// The load goes to the servers in turn, in <slices> short slices each (the order alternating per slice), so a change of
// the shared machine's load during the run falls on every server alike instead of on whichever ran then.
// echo <ports> <connections> <duration_ms>: each connection sends a message and waits for its echo, over and over;
// <duration_ms> per server in all.
// broadcast <ports> <clients> <messages>: clients join /room; one more asks for broadcasts; a slice is done when every
// client received them all; <messages> per server in all.
// <ports> is a comma-separated list; <slices>, the last argument, the number of turns per server.
import { once } from 'node:events'
import WebSocket from 'ws'

const MESSAGE = 'a short chat message'
const [mode, ports_arg, count_arg, amount_arg, slices_arg] = process.argv.slice(2)
const SLICES = Number(slices_arg)
const ports = ports_arg!.split(',')

interface Figure {
  messages: number
  ms: number
}

async function open(port: string, path: string, n: number): Promise<WebSocket[]> {
  return Promise.all(
    Array.from({ length: n }, async () => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, { perMessageDeflate: false })
      await once(ws, 'open')
      return ws
    }),
  )
}

/** Echo round trips on `sockets` for `duration_ms`; each connection ends after the echo of its last message. */
async function echo_slice(sockets: WebSocket[], duration_ms: number): Promise<number> {
  let messages = 0
  const until = performance.now() + duration_ms
  await Promise.all(
    sockets.map(
      (ws) =>
        new Promise<void>((resolve) => {
          const on_echo = (): void => {
            messages++
            if (performance.now() < until) return void ws.send(MESSAGE)
            ws.off('message', on_echo)
            resolve()
          }
          ws.on('message', on_echo)
          ws.send(MESSAGE)
        }),
    ),
  )
  return messages
}

/** `n` broadcasts asked of the room through `control`; done when each of `sockets` received them all. */
async function broadcast_slice(sockets: WebSocket[], control: WebSocket, n: number): Promise<number> {
  const all = Promise.all(
    sockets.map(
      (ws) =>
        new Promise<void>((resolve) => {
          let got = 0
          const on_message = (): void => {
            if (++got < n) return
            ws.off('message', on_message)
            resolve()
          }
          ws.on('message', on_message)
        }),
    ),
  )
  control.send(`go ${n}`)
  await all
  return sockets.length * n
}

/** Runs `slice(i)` for each server in turn, SLICES times, alternating the order; its messages and time per server. */
async function interleaved(slice: (server: number) => Promise<number>): Promise<Figure[]> {
  const figures = ports.map(() => ({ messages: 0, ms: 0 }))
  for (let s = 0; s < SLICES; s++) {
    const order = ports.map((_, i) => i)
    for (const i of s % 2 ? order.reverse() : order) {
      const t0 = performance.now()
      figures[i]!.messages += await slice(i)
      figures[i]!.ms += performance.now() - t0
    }
  }
  return figures
}

async function main(): Promise<{ results: Figure[]; sockets: WebSocket[] }> {
  const count = Number(count_arg)
  const amount = Number(amount_arg)
  if (mode === 'echo') {
    const sockets = await Promise.all(ports.map((p) => open(p, '/echo', count)))
    await started()
    const results = await interleaved((i) => echo_slice(sockets[i]!, amount / SLICES))
    return { results, sockets: sockets.flat() }
  }
  const rooms = await Promise.all(ports.map((p) => open(p, '/room', count)))
  const controls = await Promise.all(ports.map(async (p) => (await open(p, '/room', 1))[0]!))
  await started()
  const results = await interleaved((i) => broadcast_slice(rooms[i]!, controls[i]!, Math.ceil(amount / SLICES)))
  return { results, sockets: [...rooms.flat(), ...controls] }
}

let cpu_at_start = process.cpuUsage()

async function started(): Promise<void> {
  process.stdout.write('ready\n')
  await once(process.stdin, 'data')
  cpu_at_start = process.cpuUsage()
}

const { results, sockets } = await main()
// The client's own CPU over the measured part: whether the load generator, not the servers, set the pace.
const { user, system } = process.cpuUsage(cpu_at_start)
for (const ws of sockets) ws.terminate()
process.stdout.write(JSON.stringify({ results, client_cpu_us: user + system }) + '\n')
process.exit(0)
