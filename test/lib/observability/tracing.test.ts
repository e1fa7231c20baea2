// HttpTracing.child with the OpenTelemetry SDK and an in-memory exporter: the child span's name, parent, attributes and
// its end, on success and on failure.
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import t from 'tap'
import { HttpTracing } from '../../../lib/observability/index.js'

// The context manager an SDK setup registers: without one, no span is ever the active one.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })

t.test('HttpTracing.child', async (t) => {
  t.beforeEach(() => exporter.reset())
  const tracing = new HttpTracing(provider.getTracer('test'))

  t.test('runs the function in an internal span that is the active one, ended when it settles', async (t) => {
    let active: string | undefined
    const out = await tracing.child('cache.lookup', async () => {
      active = trace.getActiveSpan()?.spanContext().spanId
      return 42
    }, { key: '/data' })
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
    await t.rejects(tracing.child('redis.get', () => {
      throw new Error('connection lost')
    }), { message: 'connection lost' })
    const [span] = exporter.getFinishedSpans()
    t.equal(span!.status.code, 2, 'SpanStatusCode.ERROR')
    t.same(span!.events.map((e) => [e.name, e.attributes?.['exception.message']]), [['exception', 'connection lost']])
  })
})
