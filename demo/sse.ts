// Demo `sse`: `GET /events` counts up once a second as server-sent events, and a page shows the count.
import type { Request, Router } from '../index.js'
import type { Demo } from './demo.js'

/** Options of `setup_sse`. */
export interface SseDemoOptions {
  /** Milliseconds between events (default 1000). */
  interval_ms?: number
  /** Stop after this many events (default: never). */
  max?: number
}

const page = (events: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>fw server-sent events</title></head>
<body style="font-family: system-ui; max-width: 40rem; margin: 2rem auto">
<h1>Count: <span id="count">-</span></h1>
<script>
  const source = new EventSource(${JSON.stringify(events)})
  source.onmessage = (e) => { document.getElementById('count').textContent = JSON.parse(e.data).n }
</script>
</body></html>`

const base_of = (req: Request): string => req.path().replace(/\/$/, '')

/**
 * Registers `GET /` (the page) and `GET /events` (one event a second, `{ n }`, resuming after `Last-Event-ID`).
 * @example
 * setup_sse(app, { interval_ms: 100, max: 3 })
 */
export function setup_sse(
  r: Router,
  { interval_ms = 1000, max = Number.POSITIVE_INFINITY }: SseDemoOptions = {},
): void {
  r.get('/', (req, res) => res.header('content-type', 'text/html; charset=utf-8').send(page(`${base_of(req)}/events`)))
  r.get('/events', (_req, res) =>
    res.sse(async (sink) => {
      const start = Number(sink.last_event_id ?? 0) || 0
      for (let n = start + 1; n <= start + max && !sink.closed; n++) {
        await sink.send({ data: { n }, id: String(n) })
        if (n < start + max) await sleep(interval_ms, sink.signal)
      }
    }),
  )
}

/** Waits `ms`, or less when `signal` fires (the client left). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done(): void {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })
}

export const demo: Demo = {
  name: 'sse',
  description: 'GET /events counts up once a second as server-sent events; GET / shows the count',
  setup(_app, r) {
    setup_sse(r)
  },
}
