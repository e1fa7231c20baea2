// HttpTracing: without an SDK nothing records until a provider is registered, and then at once (in_span runs bare);
// with the SDK and an in-memory exporter, child spans carry their name, parent, attributes and end, on success and
// failure.
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import t from 'tap'
import { HttpTracing, in_span } from '../../../lib/observability/index.js'

// The context manager an SDK setup registers: without one, no span is ever the active one.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })

t.test('HttpTracing.recording', async (t) => {
  t.test('is false for the global tracer until an SDK registers a provider, then true at once', async (t) => {
    const tracing = new HttpTracing()
    t.equal(tracing.recording(), false)
    t.equal(await in_span('x', {}, (span) => span), undefined, 'in_span runs its function with no span')
    const exporter = new InMemorySpanExporter()
    t.ok(
      trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })),
    )
    t.teardown(() => trace.disable())
    t.equal(tracing.recording(), true)
  })

  t.test('is true for a tracer given by the caller', async (t) => {
    t.equal(new HttpTracing(trace.getTracer('mine')).recording(), true)
  })
})

t.test('HttpTracing.start', async (t) => {
  t.beforeEach(() => exporter.reset())
  const tracing = new HttpTracing(provider.getTracer('test'))
  const info = { method: 'GET', route: '/x', headers: {}, client_ip: '127.0.0.1', scheme: 'http' }

  t.test(
    'redacts SECRET_QUERY (api_key, access_token, code...) in url.query by default, and the names given instead',
    async (t) => {
      tracing.start({ ...info, target: '/x?api_key=k1&access_token=t1&code=c1&ticket=t2&page=2' }).end()
      tracing
        .start({ ...info, target: '/x?api_key=k1&ticket=t2&next=/y?ticket=t3', secret_query: new Set(['ticket']) })
        .end()
      tracing.start({ ...info, target: '/x' }).end()
      t.same(
        exporter.getFinishedSpans().map((s) => s.attributes['url.query']),
        [
          'api_key=[redacted]&access_token=[redacted]&code=[redacted]&ticket=t2&page=2',
          'api_key=k1&ticket=[redacted]&next=/y?ticket=t3',
          undefined,
        ],
      )
    },
  )
})

t.test('HttpTracing.child', async (t) => {
  t.beforeEach(() => exporter.reset())
  const tracing = new HttpTracing(provider.getTracer('test'))

  t.test('runs the function in an internal span that is the active one, ended when it settles', async (t) => {
    let active: string | undefined
    const out = await tracing.child(
      'cache.lookup',
      async () => {
        active = trace.getActiveSpan()?.spanContext().spanId
        return 42
      },
      { key: '/data' },
    )
    t.equal(out, 42)
    const [span] = exporter.getFinishedSpans()
    t.equal(exporter.getFinishedSpans().length, 1)
    t.equal(span!.name, 'cache.lookup')
    t.equal(span!.kind, 0, 'SpanKind.INTERNAL')
    t.same(span!.attributes, { key: '/data' })
    t.equal(active, span!.spanContext().spanId, 'the function sees its span as the active one')
    t.equal(span!.status.code, 0, 'UNSET')
  })

  t.test('records an error on the span, marks it failed and rethrows it', async (t) => {
    await t.rejects(
      tracing.child('redis.get', () => {
        throw new Error('connection lost')
      }),
      { message: 'connection lost' },
    )
    const [span] = exporter.getFinishedSpans()
    t.equal(span!.status.code, 2, 'SpanStatusCode.ERROR')
    t.same(
      span!.events.map((e) => [e.name, e.attributes?.['exception.message']]),
      [['exception', 'connection lost']],
    )
  })
})
