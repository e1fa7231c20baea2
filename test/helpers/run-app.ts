// A program for the lifecycle test: `app.run()` with a route that stays in flight until the process gets SIGTERM.
// It prints `in flight` when the request arrives and `stopped` after run() returns.
import { App } from '../../index.js'

const app = new App({ access_log: false })
app.get('/slow', async (_req, res) => {
  const signalled = new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()))
  console.log('in flight')
  await signalled
  res.json('ok', true, 'answered', 'after SIGTERM')
})
app.on_close(() => console.log('on_close ran'))
await app.run()
console.log('stopped')
