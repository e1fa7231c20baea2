// HttpTracing without an SDK: nothing records until a provider is registered, and then at once; in_span runs bare.
import { trace } from '@opentelemetry/api'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import t from 'tap'
import { HttpTracing, in_span } from '../../../lib/observability/index.js'

t.test('HttpTracing.recording', async (t) => {
  t.test('is false for the global tracer until an SDK registers a provider, then true at once', async (t) => {
    const tracing = new HttpTracing()
    t.equal(tracing.recording(), false)
    t.equal(await in_span('x', {}, (span) => span), undefined, 'in_span runs its function with no span')
    const exporter = new InMemorySpanExporter()
    t.ok(trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })))
    t.teardown(() => trace.disable())
    t.equal(tracing.recording(), true)
  })

  t.test('is true for a tracer given by the caller', async (t) => {
    t.equal(new HttpTracing(trace.getTracer('mine')).recording(), true)
  })
})
