import t from 'tap'
import { Health, redis_ping } from '../../../lib/observability/index.js'

t.test('redis_ping', async (t) => {
  t.test('passes when the client answers PONG', async (t) => {
    t.equal(await redis_ping({ ping: async () => 'PONG' })(), undefined)
  })

  t.test('fails on any other answer, quoting it', async (t) => {
    await t.rejects(redis_ping({ ping: async () => 'LOADING' })() as Promise<unknown>, {
      message: 'unexpected PING answer "LOADING"',
    })
  })

  t.test('fails when the ping fails', async (t) => {
    await t.rejects(redis_ping({ ping: async () => Promise.reject(new Error('ECONNREFUSED')) })() as Promise<unknown>, {
      message: 'ECONNREFUSED',
    })
  })
})

t.test('Health.draining', async (t) => {
  t.test('turns true with drain() and stays so', async (t) => {
    const health = new Health()
    t.equal(health.draining(), false)
    health.drain()
    health.drain()
    t.equal(health.draining(), true)
  })
})

t.test('Health options', async (t) => {
  t.test('refuses a bad timeout or check at creation, naming the option', async (t) => {
    t.throws(() => new Health({ timeout_ms: 0 }), {
      code: 'FW_ERR_OBSERVABILITY_BAD_OPTION',
      message: 'health: timeout_ms must be an integer >= 1; got 0',
    })
    t.throws(() => new Health({ timeout_ms: 1.5 }), {
      message: 'health: timeout_ms must be an integer >= 1; got 1.5',
    })
    t.throws(() => new Health({ checks: { db: 'select 1' as unknown as () => void } }), {
      code: 'FW_ERR_OBSERVABILITY_BAD_OPTION',
      message: 'health: checks.db must be a function; got "select 1"',
    })
  })
})
