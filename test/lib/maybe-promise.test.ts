import t from 'tap'
import { when } from '../../lib/maybe-promise.js'

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
