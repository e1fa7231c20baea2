import t from 'tap'
import { is_thenable, when, within } from '../../lib/maybe-promise.js'
import { Later, foreign, foreign_reject, lazy } from '../helpers/thenable.js'

t.test('when', async (t) => {
  t.test('continues at once with a value, allocating no promise', async (t) => {
    const out = when(2, (n) => n * 10)
    t.equal(out, 20)
  })

  t.test('lets a throw of the continuation out at once', async (t) => {
    t.throws(
      () =>
        when(1, () => {
          throw new Error('bad')
        }),
      { message: 'bad' },
    )
  })

  t.test('continues in a promise with a promise', async (t) => {
    const out = when(Promise.resolve(2), (n) => n * 10)
    t.type(out, Promise)
    t.equal(await out, 20)
  })

  t.test('hands a rejection to fail when given, and passes it on otherwise', async (t) => {
    const failed = when(
      Promise.reject(new Error('down')),
      () => 'value',
      (err) => `failed: ${(err as Error).message}`,
    )
    t.equal(await failed, 'failed: down')
    await t.rejects(when(Promise.reject(new Error('down')), () => 'value') as Promise<string>, { message: 'down' })
  })

  t.test(
    'continues in a native promise with any thenable: a promise library, a lazy builder, another realm',
    async (t) => {
      for (const [name, answer] of [
        ['Bluebird-like', new Later(2)],
        ['lazy builder', lazy(() => 2)],
        ['another realm', foreign(2)],
      ] as const) {
        const out = when(answer, (n) => n * 10)
        t.type(out, Promise, `${name}: a native promise`)
        t.equal(await out, 20, `${name}: continued with the value, not the thenable`)
      }
    },
  )

  t.test('hands a rejection of a thenable to fail', async (t) => {
    const fail = (err: unknown) => `failed: ${(err as Error).message}`
    t.equal(await when(Later.reject(new Error('down')), () => 'value', fail), 'failed: down')
    t.equal(await when(foreign_reject(new Error('gone')), () => 'value', fail), 'failed: gone')
  })
})

t.test('is_thenable', async (t) => {
  t.ok(is_thenable(Promise.resolve(1)), 'a native promise')
  t.ok(is_thenable(new Later(1)), 'a promise library promise')
  t.ok(is_thenable(foreign(1)), 'a native promise of another realm')
  t.ok(is_thenable(Object.assign(() => 1, { then: () => undefined })), 'a function with a then method')
  for (const v of [undefined, null, 0, 'then', { then: 1 }, { current: 1 }, []]) t.notOk(is_thenable(v), String(v))
})

t.test('within', async (t) => {
  const LATE = Symbol('late')
  t.equal(await within(Promise.resolve(7), 1000, LATE), 7, 'the value, in time')
  t.equal(await within(3, 1000, LATE), 3, 'a plain value')
  t.equal(await within(new Promise(() => {}), 10, LATE), LATE, 'late once the time has passed')
  await t.rejects(within(Promise.reject(new Error('down')), 1000, LATE), { message: 'down' }, 'a rejection in time')
})
