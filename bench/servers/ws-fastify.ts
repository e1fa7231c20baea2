// Bare Fastify with @fastify/websocket serving the WebSocket scenarios, the same routes as ws-fw.ts doing the same
// work per message: /echo reads a text frame as a string and sends the string back (fw hands a text to its handler as
// a string), and /room encodes each broadcast once for all its members (as fw's rooms do).
import type { AddressInfo } from 'node:net'
import fastifyWebsocket, { type WebSocket } from '@fastify/websocket'
import Fastify from 'fastify'

const f = Fastify()
await f.register(fastifyWebsocket)
const room = new Set<WebSocket>()
f.get('/echo', { websocket: true }, (socket) => {
  socket.on('message', (data: Buffer, binary) => socket.send(binary ? data : data.toString()))
})
f.get('/room', { websocket: true }, (socket) => {
  room.add(socket)
  socket.on('close', () => room.delete(socket))
  socket.on('message', (data) => {
    const n = Number(data.toString().slice(3))
    for (let i = 0; i < n; i++) {
      const text = Buffer.from(`{"i":${i},"text":"a message to the whole room"}`)
      for (const s of room) if (s !== socket) s.send(text, { binary: false })
    }
  })
})
await f.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`listening ${(f.server.address() as AddressInfo).port}\n`)
