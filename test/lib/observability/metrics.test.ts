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

  t.test('refuses buckets that are not finite numbers in increasing order, which would miscount', async (t) => {
    for (const buckets of [[1, 0.1], [0.1, 0.1], [0.1, NaN], [0.1, Infinity], ['0.1'], 0.1]) {
      t.throws(() => new Metrics({ default_metrics: false, buckets: buckets as number[] }), {
        code: 'FW_ERR_OBSERVABILITY_BAD_OPTION',
        message: /^Metrics: buckets must be a list of finite numbers in increasing order; got /,
      })
    }
    const metrics = new Metrics({ default_metrics: false, buckets: [] })
    t.teardown(() => metrics.close())
    metrics.started()
    metrics.finished('GET', '/a', 200, 0.5)
    t.match(
      http_part(await metrics.text()),
      'fw_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/a",status="200"} 1',
    )
  })

  t.test(
    'refuses a prefix that makes no metric name, and a default_metrics that is not true, false or strict',
    async (t) => {
      // prom-client threw its own uncoded 'Invalid metric name' for the prefix, and took any truthy value as true, so a
      // typo of 'strict' kept the three gauges it is meant to leave out.
      for (const prefix of ['my-app_', '1fw_', 'fw ', 'fw.', 7]) {
        t.throws(() => new Metrics({ default_metrics: false, prefix: prefix as unknown as string }), {
          code: 'FW_ERR_OBSERVABILITY_BAD_OPTION',
          message:
            /^Metrics: prefix must be empty or a Prometheus name \(letters, digits, _ and :, not a digit first\); got /,
        })
      }
      for (const default_metrics of ['Strict', 'yes', 1, null]) {
        t.throws(() => new Metrics({ default_metrics: default_metrics as unknown as boolean }), {
          code: 'FW_ERR_OBSERVABILITY_BAD_OPTION',
          message: /^Metrics: default_metrics must be true, false or "strict"; got /,
        })
      }
      for (const prefix of ['', 'app_', 'app:', '_x9_']) {
        const metrics = new Metrics({ default_metrics: false, prefix })
        t.teardown(() => metrics.close())
        t.match(await metrics.text(), `# TYPE ${prefix}http_requests_total counter`)
      }
    },
  )

  t.test('lists no request series before the first request', async (t) => {
    const metrics = new Metrics({ default_metrics: false })
    t.teardown(() => metrics.close())
    t.equal(http_part(await metrics.text()), await reference([]))
  })

  t.test('counts a method Node does not know (any token over HTTP/2) as _OTHER, one series for all', async (t) => {
    const traffic: Answer[] = [
      ['RND1', '(unmatched)', 404, 0.001],
      ['GET', '(unmatched)', 404, 0.001],
      ['RND2', '(unmatched)', 404, 0.002],
      ['get', '/users/{id}', 404, 0.001],
      ['PROPFIND', '(unmatched)', 404, 0.001],
      ['RND3', '(unmatched)', 404, 0.003],
    ]
    const metrics = fed(traffic)
    t.teardown(() => metrics.close())
    const other = (m: string): string => (['GET', 'PROPFIND'].includes(m) ? m : '_OTHER')
    t.equal(
      http_part(await metrics.text()),
      await reference(traffic.map(([method, ...rest]) => [other(method), ...rest])),
      "Node's methods keep their name; the others are one _OTHER series per route and status",
    )
  })
})

/**
 * The naming rules of `promtool check metrics` (Prometheus's promlint) that a registry's names can break: a counter
 * ends in `_total` and nothing else does, `_count`, `_sum` and `_bucket` belong to histograms and summaries, names are
 * snake_case, and every metric has help text. Returns one problem per broken rule, as `name: rule`.
 */
async function promlint(registry: Registry): Promise<string[]> {
  const problems: string[] = []
  for (const m of await registry.getMetricsAsJSON()) {
    const name = m.name
    // prom-client's MetricType is an enum of the same strings.
    const type = String(m.type)
    if (type === 'counter' && !name.endsWith('_total')) problems.push(`${name}: counter without _total`)
    if (type !== 'counter' && name.endsWith('_total')) problems.push(`${name}: non-counter with _total`)
    if (!['histogram', 'summary'].includes(type) && /_(count|sum|bucket)$/.test(name))
      problems.push(`${name}: reserved suffix`)
    if (/[A-Z]/.test(name)) problems.push(`${name}: camelCase`)
    if (m.help.trim() === '') problems.push(`${name}: no help`)
  }
  return problems
}

t.test('Metrics names under promtool check metrics', async (t) => {
  const lint = async (options: ConstructorParameters<typeof Metrics>[0]) => {
    const metrics = new Metrics(options)
    t.teardown(() => metrics.close())
    return promlint(metrics.registry)
  }

  t.test("fw's own metrics pass", async (t) => {
    t.same(await lint({ default_metrics: false }), [])
  })

  t.test("prom-client's default Node metrics break the _total rule with three gauges, as docs say", async (t) => {
    t.same(await lint({}), [
      'nodejs_active_resources_total: non-counter with _total',
      'nodejs_active_handles_total: non-counter with _total',
      'nodejs_active_requests_total: non-counter with _total',
    ])
  })

  t.test("default_metrics: 'strict' gives the default metrics without those three, and passes", async (t) => {
    t.same(await lint({ default_metrics: 'strict' }), [])
    const metrics = new Metrics({ default_metrics: 'strict' })
    t.teardown(() => metrics.close())
    const text = await metrics.text()
    t.match(text, /^nodejs_active_handles\{type="\w+"\} \d+$/m, 'their per-type series, which sum to them, stay')
    t.match(text, /^process_cpu_user_seconds_total \d/m)
    t.notMatch(text, /nodejs_active_(handles|requests|resources)_total/)
  })
})
