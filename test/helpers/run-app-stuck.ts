// A program for the lifecycle test: `app.run()` with a route that never answers, so a SIGTERM's close waits (its
// close_timeout_ms is long), and buffered log lines (async mode) that only a flush writes. It prints `in flight` when
// the request arrives.
import { App } from '../../index.js'
import { configure, logger } from '../../lib/log/index.js'

configure({ async: true })
const app = new App({ access_log: false, close_timeout_ms: 60_000 })
app.get('/stuck', async () => {
  logger('orders').warn('buffered before the signal')
  console.log('in flight')
  await new Promise(() => {})
})
app.on_close(() => console.log('on_close ran'))
await app.run()
