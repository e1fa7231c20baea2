// The soak's server: the showcase, plus `GET /__soak/stats` answering memory (after a full GC when node runs with
// --expose-gc, as the soak starts it) and the event-loop delay since the last read.
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { App } from '../../index.js'
import { build_showcase } from '../../demo/showcase.js'

const delay = monitorEventLoopDelay({ resolution: 10 })
delay.enable()
const app = await build_showcase(new App({ host: '127.0.0.1' }))
app.get('/__soak/stats', (_req, res) => {
  // Collected first: at thousands of requests a second the heap climbs for a minute between collections, which hides a
  // leak in a short run; what survives a full GC is what the process keeps.
  globalThis.gc?.()
  const m = process.memoryUsage()
  const ms = (ns: number): number => Math.round(ns / 1e4) / 100
  res.json(
    'rss',
    m.rss,
    'heap_used',
    m.heapUsed,
    'loop_p50_ms',
    ms(delay.percentile(50)),
    'loop_p99_ms',
    ms(delay.percentile(99)),
    'loop_max_ms',
    ms(delay.max),
  )
  delay.reset()
})
// The line the soak waits for, on stdout whatever the log level (run() writes its own through the logger).
await app.run(undefined, (url) => console.log(`listening on ${url}`))
