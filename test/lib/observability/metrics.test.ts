// Metrics: the request counter and duration histogram, kept in fw's own totals and published at scrape, read exactly
// as prom-client's own inc() and observe() would have left them.
import { Counter, Histogram, Registry } from 'prom-client'
import t from 'tap'
import { Metrics } from '../../../lib/observability/index.js'

type Answer = [method: string, route: string, status: number, seconds: number]

/** Traffic with repeated and interleaved series, durations on bounds, between them and past the last one. */
const TRAFFIC: Answer[] = [
  ['GET', '/users/{id}', 200, 0.003],
  ['GET', '/users/{id}', 200, 0.005],
  ['POST', '/users', 201, 0.0123],
  ['GET', '/users/{id}', 404, 0.2],
  ['GET', '(unmatched)', 404, 0.0001],
  ['GET', '/users/{id}', 200, 12.5],
  ['POST', '/users', 201, 0.1],
  ['GET', '/users/{id}', 200, 0.07],
  ['DELETE', '/users/{id}', 500, 2.5],
  ['GET', '/users/{id}', 404, 1.3],
]

/** The two HTTP metrics of a plain prom-client registry fed one call per answer, as fw did before. */
async function reference(traffic: Answer[], buckets?: number[]): Promise<string> {
  const registers = [new Registry()]
  const labelNames = ['method', 'route', 'status']
  const requests = new Counter({
    name: 'fw_http_requests_total',
    help: 'HTTP requests answered',
    labelNames,
    registers,
  })
  const duration = new Histogram({
    name: 'fw_http_request_duration_seconds',
    help: 'Time to answer',
    labelNames,
    registers,
    ...(buckets === undefined ? {} : { buckets }),
  })
  for (const [method, route, status, seconds] of traffic) {
    const labels = { method, route, status: String(status) }
    requests.inc(labels)
    duration.observe(labels, seconds)
  }
  return http_part(await registers[0]!.metrics())
}

/** The request counter and duration histogram of an exposition text. */
function http_part(text: string): string {
  return text
    .split('\n\n')
    .map((block) => block.trimEnd())
    .filter((block) => /^# HELP fw_http_request(s_total|_duration_seconds) /.test(block))
    .join('\n\n')
}

function fed(traffic: Answer[], metrics = new Metrics({ default_metrics: false })): Metrics {
  for (const [method, route, status, seconds] of traffic) {
    metrics.started()
    metrics.finished(method, route, status, seconds)
  }
  return metrics
}

t.test('Metrics', async (t) => {
  t.test('publishes the request counter and histogram byte for byte as prom-client fed per request', async (t) => {
    const metrics = fed(TRAFFIC)
    t.teardown(() => metrics.close())
    const expected = await reference(TRAFFIC)
    t.match(expected, /fw_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/users\/\{id\}"/)
    t.equal(http_part(await metrics.text()), expected)
    t.equal(http_part(await metrics.text()), expected, 'a second scrape reads the same')
  })

  t.test('keeps counting after a scrape, in the order series first appeared', async (t) => {
    const metrics = fed(TRAFFIC.slice(0, 4))
    t.teardown(() => metrics.close())
    await metrics.text()
    fed(TRAFFIC.slice(4), metrics)
    t.equal(http_part(await metrics.text()), await reference(TRAFFIC))
  })

  t.test('uses the buckets given, a duration on a bound counted in that bound', async (t) => {
    const buckets = [0.01, 0.1, 1]
    const metrics = fed(TRAFFIC, new Metrics({ default_metrics: false, buckets }))
    t.teardown(() => metrics.close())
    const text = http_part(await metrics.text())
    t.equal(text, await reference(TRAFFIC, buckets))
    t.match(text, 'fw_http_request_duration_seconds_bucket{le="0.1",method="POST",route="/users",status="201"} 2')
  })

  t.test('lists no request series before the first request', async (t) => {
    const metrics = new Metrics({ default_metrics: false })
    t.teardown(() => metrics.close())
    t.equal(http_part(await metrics.text()), await reference([]))
  })
})
