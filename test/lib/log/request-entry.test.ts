// request_entry: a request context entered again and again (a WebSocket connection's messages). Its own file, in its
// own process: the tests after the first turn following on for good (follow_context), which the first must not see.
import { createHook } from 'node:async_hooks'
import { setImmediate as tick } from 'node:timers/promises'
import t from 'tap'
import {
  current_context,
  follow_context,
  HOOKED_CONTEXT,
  request_context,
  request_entry,
  set_context,
  with_request_id,
} from '../../../lib/log/context.js'
import { configure } from '../../../lib/log/index.js'

const rid = (): string | undefined => current_context()?.request_id

/** What `fn` saw of the context before and after an await, run through `enter`. */
async function seen(enter: ReturnType<typeof request_entry>, label: string): Promise<Array<string | undefined>> {
  const out: Array<string | undefined> = []
  await enter(
    async (a: string, b: string) => {
      out.push(`${a}${b}:${rid()}`)
      await tick()
      out.push(`${a}${b}:${rid()}`)
    },
    label,
    '',
  )
  return out
}

t.test('request_entry', async (t) => {
  configure({ level: 'off' })
  t.teardown(() => configure({ level: 'info' }))

  t.test('while nothing can use the context, it holds for the synchronous part only', async (t) => {
    const enter = request_entry(request_context('ws-1', undefined, undefined))
    t.same(await seen(enter, 'm'), ['m:ws-1', 'm:undefined'])
    t.equal(current_context(), undefined, 'nothing is left once the entry returns')
  })

  t.test('once followed, every entry runs in the context across its awaits, and leaves nothing behind', async (t) => {
    follow_context()
    const enter = request_entry(request_context('ws-2', undefined, undefined))
    t.same(await seen(enter, 'a'), ['a:ws-2', 'a:ws-2'])
    t.same(await seen(enter, 'b'), ['b:ws-2', 'b:ws-2'])
    t.equal(current_context(), undefined)
  })

  t.test('entries of two contexts, interleaved, keep their own', async (t) => {
    const one = request_entry(request_context('one', undefined, undefined))
    const two = request_entry(request_context('two', undefined, undefined))
    const all = await Promise.all([seen(one, 'x'), seen(two, 'y'), seen(one, 'z')])
    t.same(all, [
      ['x:one', 'x:one'],
      ['y:two', 'y:two'],
      ['z:one', 'z:one'],
    ])
  })

  t.test('a context set inside one entry stays there: the next entry starts from the request again', async (t) => {
    const enter = request_entry(request_context('ws-3', undefined, undefined))
    const modules: string[] = []
    const handle = (_a: undefined, _b: undefined): void => {
      modules.push(current_context()?.module ?? '')
      set_context({ request_id: 'ws-3', module: 'orders' })
    }
    enter(handle, undefined, undefined)
    enter(handle, undefined, undefined)
    t.same(modules, ['', ''])
    t.equal(current_context(), undefined)
  })

  t.test('inside a synchronous context set around the caller, the entry holds, and the outer one comes back', (t) => {
    const enter = request_entry(request_context('inner', undefined, undefined))
    const ids = with_request_id('outer', () => [rid(), enter(() => rid(), undefined, undefined), rid()])
    t.same(ids, ['outer', 'inner', 'outer'])
    t.end()
  })

  t.test(
    HOOKED_CONTEXT
      ? 'on Node 20 and 22 each entry runs the context itself: no resource is made'
      : 'on Node 24 and later the context is captured once per entry function, not once per entry',
    async (t) => {
      let made = 0
      const hook = createHook({ init: (_id, type) => void (type === 'fw.request' && made++) }).enable()
      t.teardown(() => void hook.disable())
      const enter = request_entry(request_context('ws-4', undefined, undefined))
      for (let i = 0; i < 5; i++)
        t.equal(
          enter(() => rid(), undefined, undefined),
          'ws-4',
        )
      t.equal(made, HOOKED_CONTEXT ? 0 : 1)
    },
  )
})
