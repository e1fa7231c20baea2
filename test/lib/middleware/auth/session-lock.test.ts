import t from 'tap'
import { KeyedLock } from '../../../../lib/middleware/auth/session-lock.js'

t.test('KeyedLock', async (t) => {
  t.test('runs holders of one key one after another, in arrival order', async (t) => {
    const lock = new KeyedLock()
    const log: string[] = []
    const task = async (name: string) => {
      const release = await lock.acquire('k')
      log.push(`${name} in`)
      await new Promise((r) => setImmediate(r))
      log.push(`${name} out`)
      release()
    }
    await Promise.all([task('a'), task('b'), task('c')])
    t.same(log, ['a in', 'a out', 'b in', 'b out', 'c in', 'c out'])
    t.equal(lock.size, 0)
  })

  t.test('lets different keys run side by side', async (t) => {
    const lock = new KeyedLock()
    const a = await lock.acquire('a')
    const b = await lock.acquire('b')
    t.equal(lock.size, 2)
    a()
    b()
    t.equal(lock.size, 0)
  })

  t.test('keeps the key while someone waits for it', async (t) => {
    const lock = new KeyedLock()
    const first = await lock.acquire('k')
    let second_in = false
    const second = lock.acquire('k').then((release) => {
      second_in = true
      return release
    })
    await new Promise((r) => setImmediate(r))
    t.equal(second_in, false)
    first()
    t.equal(lock.size, 1)
    ;(await second)()
    t.equal(second_in, true)
    t.equal(lock.size, 0)
  })
})
