// When a request's log context follows its async work (run_with_request_id, with_request_id). Its own file, in its own
// process: the first call of context(), or the first line request code writes, switches following on for good, so the
// tests before it must not have made one.
import { setImmediate as tick } from 'node:timers/promises'
import t from 'tap'
import { MemoryStream, msg_and_rid } from './capture.js'
import {
  context,
  current_context,
  HOOKED_CONTEXT,
  run_with_request_id,
  with_request_id,
} from '../../../lib/log/context.js'
import { configure, info, set_level } from '../../../lib/log/index.js'

const lines = (out: MemoryStream): Array<[string, string | undefined]> => out.lines().map(msg_and_rid)

t.test('run_with_request_id', async (t) => {
  const out = new MemoryStream()
  configure({ destination: out, format: 'kv', level: 'off' })
  t.teardown(() => configure({ destination: 1, level: 'info' }))

  t.test('with the level off, the id holds for the synchronous part only, never for another request', async (t) => {
    const seen: Array<string | undefined> = []
    const serve = async (): Promise<void> => {
      seen.push(current_context()?.request_id)
      await tick()
      seen.push(current_context()?.request_id)
    }
    await Promise.all([run_with_request_id('r-1', serve), run_with_request_id('r-2', serve)])
    t.same(seen, ['r-1', 'r-2', undefined, undefined])
    t.equal(current_context(), undefined, 'nothing is left once the request returns')
  })

  t.test('with a line possible, requests follow their async work once request code writes a line', async (t) => {
    set_level('info')
    t.teardown(() => set_level('off'))
    const serve = (id: string) =>
      run_with_request_id(id, async () => {
        await tick()
        info('after {}', id)
      })
    // A line given its context (the access line's way) teaches nothing: it carries its id either way.
    with_request_id('given', () => info('given line'))
    await Promise.all([serve('a'), serve('b')])
    // On Node 20 and 22 (async hooks) the first requests ran unfollowed, so their lines after an await have no id;
    // the first of those lines turns following on. Node 24's AsyncContextFrame follows from the start.
    const first = HOOKED_CONTEXT ? undefined : 'a'
    const second = HOOKED_CONTEXT ? undefined : 'b'
    await Promise.all([serve('c'), serve('d')])
    t.same(lines(out), [
      ['given line', 'given'],
      ['after a', first],
      ['after b', second],
      ['after c', 'c'],
      ['after d', 'd'],
    ])
  })

  t.test(
    'with the level off again, a call of context() makes later requests keep their id across awaits',
    async (t) => {
      await run_with_request_id('first', async () => {
        t.equal(context().request_id, 'first')
        await tick()
      })
      const later = await run_with_request_id('second', async () => {
        await tick()
        return context().request_id
      })
      t.equal(later, 'second')
    },
  )
})

t.test('with_request_id', async (t) => {
  const out = new MemoryStream()
  configure({ destination: out, format: 'kv', level: 'info' })
  t.teardown(() => configure({ destination: 1 }))

  t.test('gives the lines written before it returns the id, and passes the arguments through', async (t) => {
    const r = with_request_id(
      'w-1',
      (n: number) => {
        info('now')
        return n * 2
      },
      21,
    )
    t.equal(r, 42)
    t.same(lines(out), [['now', 'w-1']])
  })

  t.test('does not follow the async work it starts', async (t) => {
    const later = await with_request_id('w-2', async () => {
      await tick()
      return current_context()?.request_id
    })
    t.equal(later, undefined)
  })
})
