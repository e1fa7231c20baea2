import { setImmediate as tick } from 'node:timers/promises'
import t from 'tap'
import { MemoryStream, T0, parse_kv } from './capture.js'
import {
  clear_context,
  context,
  current_context,
  run_with_context,
  run_with_request_id,
  set_context,
} from '../../../lib/log/context.js'
import { configure, info, set_clock } from '../../../lib/log/index.js'

t.test('set_context', async (t) => {
  t.test('sets the context that context() returns, filling what is missing', async (t) => {
    await run_with_context({}, async () => {
      t.same(context(), { request_id: '', module: '', fields: {} })
      set_context({ request_id: 'r-1', fields: { tenant: 'acme' } })
      t.same(context(), { request_id: 'r-1', module: '', fields: { tenant: 'acme' } })
    })
  })

  t.test('copies the fields it is given', async (t) => {
    await run_with_context({}, async () => {
      const fields: Record<string, string> = { a: '1' }
      set_context({ module: 'm', fields })
      fields.a = 'changed'
      fields.b = 'added'
      t.same(context().fields, { a: '1' })
    })
  })

  t.test('reaches the async work started after it', async (t) => {
    await run_with_context({}, async () => {
      set_context({ request_id: 'r-2' })
      await tick()
      const later = await new Promise<string>((resolve) => setTimeout(() => resolve(context().request_id), 1))
      t.equal(later, 'r-2')
    })
  })
})

t.test('context', async (t) => {
  t.test('returns a copy that changes nothing when changed', async (t) => {
    await run_with_context({ request_id: 'r-3', fields: { a: '1' } }, async () => {
      const copy = context()
      copy.request_id = 'other'
      copy.fields.a = 'other'
      t.same(context(), { request_id: 'r-3', module: '', fields: { a: '1' } })
    })
  })
})

t.test('clear_context', async (t) => {
  t.test('empties the current context', async (t) => {
    await run_with_context({ request_id: 'r-4', module: 'm', fields: { a: '1' } }, async () => {
      clear_context()
      t.same(context(), { request_id: '', module: '', fields: {} })
      t.same(current_context(), { request_id: '', module: '', fields: {} })
    })
  })
})

t.test('run_with_context', async (t) => {
  t.test('runs the function in a fresh context and returns its result', async (t) => {
    await run_with_context({ request_id: 'outer', module: 'outer' }, async () => {
      const inner = run_with_context({ request_id: 'inner' }, () => context())
      t.same(inner, { request_id: 'inner', module: '', fields: {} })
      t.equal(context().request_id, 'outer')
    })
  })

  t.test('keeps two concurrent flows apart, on context() and on every line', async (t) => {
    const out = new MemoryStream()
    configure({ destination: out, level: 'info', format: 'kv' })
    set_clock(() => T0)
    t.teardown(() => configure({ destination: 1 }))
    const flow = async (id: string, steps: number): Promise<string[]> => {
      set_context({ request_id: id, module: `mod-${id}` })
      const seen: string[] = []
      for (let i = 0; i < steps; i++) {
        await tick()
        info('step {}', i)
        seen.push(context().request_id)
      }
      return seen
    }
    const [a, b] = await Promise.all([
      run_with_context({}, () => flow('a', 5)),
      run_with_context({}, () => flow('b', 5)),
    ])
    t.same(a, ['a', 'a', 'a', 'a', 'a'])
    t.same(b, ['b', 'b', 'b', 'b', 'b'])
    const lines = out.lines().map(parse_kv)
    t.equal(lines.length, 10)
    const ids = lines.map((l) => l.pairs.map(([k, v]) => `${k}=${v}`).join(' '))
    t.equal(ids.filter((s) => s === 'rid=a mod=mod-a').length, 5)
    t.equal(ids.filter((s) => s === 'rid=b mod=mod-b').length, 5)
    // The flows really interleaved: their lines alternate instead of coming in two blocks.
    t.equal(
      ids.slice(0, 5).every((s) => s === ids[0]),
      false,
    )
  })
})

t.test('run_with_request_id', async (t) => {
  t.test('runs fn with its arguments in a context of only the request id, and returns its result', async (t) => {
    set_context({ request_id: 'outer', module: 'm', fields: { a: '1' } })
    const r = run_with_request_id('rid-1', (x: number, y: string) => ({ ctx: context(), sum: `${x}${y}` }), 4, '2')
    t.same(r, { ctx: { request_id: 'rid-1', module: '', fields: {} }, sum: '42' })
    t.equal(context().request_id, 'outer', 'the caller keeps its own')
  })

  t.test('a context set inside, or a changed copy, never reaches another request', async (t) => {
    run_with_request_id('a', () => {
      context().fields.leak = 'x'
      set_context({ ...context(), fields: { order: '7' } })
      t.same(context().fields, { order: '7' })
    })
    t.same(
      run_with_request_id('b', () => context()),
      { request_id: 'b', module: '', fields: {} },
    )
  })
})
