// The WebSocket load client, run pinned to core 1 by bench/websocket.ts. It connects, prints `ready`, waits for a line
// on stdin, runs, and prints one JSON line { messages, ms }, so the server's CPU is read around the measured part only.
// echo <port> <connections> <duration_ms>: each connection sends a message and waits for its echo, over and over.
// broadcast <port> <clients> <messages>: clients join /room; one more asks for <messages> broadcasts; done when every
// client received them all.
import { once } from 'node:events'
import WebSocket from 'ws'

const [mode, port_arg, count_arg, amount_arg] = process.argv.slice(2)
const url = (path: string): string => `ws://127.0.0.1:${port_arg}${path}`

async function open(path: string, n: number): Promise<WebSocket[]> {
  return Promise.all(
    Array.from({ length: n }, async () => {
      const ws = new WebSocket(url(path), { perMessageDeflate: false })
      await once(ws, 'open')
      return ws
    }),
  )
}

async function started(): Promise<void> {
  process.stdout.write('ready\n')
  await once(process.stdin, 'data')
}

async function echo(connections: number, duration_ms: number): Promise<{ messages: number; ms: number }> {
  const sockets = await open('/echo', connections)
  await started()
  let messages = 0
  const t0 = performance.now()
  const until = t0 + duration_ms
  await Promise.all(
    sockets.map(
      (ws) =>
        new Promise<void>((resolve) => {
          ws.on('message', () => {
            messages++
            if (performance.now() < until) ws.send('a short chat message')
            else resolve()
          })
          ws.send('a short chat message')
        }),
    ),
  )
  const ms = performance.now() - t0
  for (const ws of sockets) ws.terminate()
  return { messages, ms }
}

async function broadcast(clients: number, per_client: number): Promise<{ messages: number; ms: number }> {
  const sockets = await open('/room', clients)
  const [control] = await open('/room', 1)
  await started()
  const t0 = performance.now()
  const all = Promise.all(
    sockets.map(
      (ws) =>
        new Promise<void>((resolve) => {
          let got = 0
          ws.on('message', () => void (++got === per_client && resolve()))
        }),
    ),
  )
  control!.send(`go ${per_client}`)
  await all
  const ms = performance.now() - t0
  for (const ws of [...sockets, control!]) ws.terminate()
  return { messages: clients * per_client, ms }
}

const result =
  mode === 'echo'
    ? await echo(Number(count_arg), Number(amount_arg))
    : await broadcast(Number(count_arg), Number(amount_arg))
process.stdout.write(JSON.stringify(result) + '\n')
process.exit(0)
