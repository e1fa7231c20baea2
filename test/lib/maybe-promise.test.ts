import t from 'tap'
import { when, within } from '../../lib/maybe-promise.js'

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
})

t.test('within', async (t) => {
  const LATE = Symbol('late')
  t.equal(await within(Promise.resolve(7), 1000, LATE), 7, 'the value, in time')
  t.equal(await within(3, 1000, LATE), 3, 'a plain value')
  t.equal(await within(new Promise(() => {}), 10, LATE), LATE, 'late once the time has passed')
  await t.rejects(within(Promise.reject(new Error('down')), 1000, LATE), { message: 'down' }, 'a rejection in time')
})
