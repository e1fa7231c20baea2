// fw App serving the WebSocket scenarios: /echo sends each message back; /room joins one room, and `go <n>` from any
// member broadcasts n messages to the room.
import { App } from '../../index.js'

const app = new App({ host: '127.0.0.1' })
app.ws('/echo', (ws) => void ws.on_message((m) => ws.send(m)))
app.ws('/room', (ws) => {
  ws.join('bench')
  ws.on_message((m) => {
    const n = Number(String(m).slice(3))
    for (let i = 0; i < n; i++)
      app.rooms.broadcast('bench', `{"i":${i},"text":"a message to the whole room"}`, { except: ws })
  })
})
process.stdout.write(`listening ${await app.listen(0)}\n`)
