import t from 'tap'
import { ERR_CACHE_BAD_OPTION, ERR_CACHE_BAD_TIME } from '../../../lib/cache/errors.js'
import { NetworkProbe } from '../../../lib/cache/network-probe.js'

/** A check whose answers the test scripts, counting the calls. */
function scripted(...answers: (boolean | Error)[]): { check: () => boolean; calls: () => number } {
  let calls = 0
  return {
    check: () => {
      const a = answers[Math.min(calls++, answers.length - 1)]!
      if (a instanceof Error) throw a
      return a
    },
    calls: () => calls,
  }
}

t.test('NetworkProbe', async (t) => {
  t.test('defaults to a 5000 ms interval and online before the first check', async (t) => {
    const probe = new NetworkProbe({}, () => false)
    t.equal(probe.min_interval_ms, 5000)
    t.equal(probe.timeout_ms, 5000)
    t.equal(probe.isOnline(0), true)
    t.equal(probe.last_check_ms, undefined)
    t.equal(new NetworkProbe({ initial_online: false }, () => true).isOnline(0), false)
  })

  t.test('refuses a bad interval, initial state or check', async (t) => {
    t.throws(() => new NetworkProbe({ min_interval_ms: -1 }, () => true), {
      code: ERR_CACHE_BAD_OPTION.code,
      message: 'NetworkProbe: min_interval_ms must be an integer >= 0; got -1',
    })
    t.throws(() => new NetworkProbe({ initial_online: 'yes' as unknown as boolean }, () => true), {
      code: ERR_CACHE_BAD_OPTION.code,
      message: 'NetworkProbe: initial_online must be a boolean; got "yes"',
    })
    t.throws(() => new NetworkProbe({ timeout_ms: 0 }, () => true), {
      code: ERR_CACHE_BAD_OPTION.code,
      message: 'NetworkProbe: timeout_ms must be an integer from 1 to 2147483647; got 0',
    })
    // Node fires a longer timer after 1 ms: such a deadline made every check that answers later count as offline.
    t.throws(() => new NetworkProbe({ timeout_ms: 2 ** 31 }, () => true), {
      code: ERR_CACHE_BAD_OPTION.code,
      message: 'NetworkProbe: timeout_ms must be an integer from 1 to 2147483647; got 2147483648',
    })
    t.equal(new NetworkProbe({ timeout_ms: 2 ** 31 - 1 }, () => true).timeout_ms, 2 ** 31 - 1)
    t.throws(() => new NetworkProbe({}, undefined as unknown as () => boolean), {
      code: ERR_CACHE_BAD_OPTION.code,
      message: 'NetworkProbe: check must be a function; got undefined',
    })
  })
})

t.test('NetworkProbe.isOnline', async (t) => {
  t.test('answers the last known state without running the check', async (t) => {
    const s = scripted(false)
    const probe = new NetworkProbe({}, s.check)
    t.equal(probe.isOnline(1_000_000), true)
    t.equal(s.calls(), 0)
    await probe.refresh(0)
    t.equal(probe.isOnline(0), false)
    t.equal(probe.isOnline(1e12), false)
    t.equal(s.calls(), 1)
  })
})

t.test('NetworkProbe.refresh', async (t) => {
  t.test('runs the check at most once per min_interval_ms', async (t) => {
    const s = scripted(false, true, false)
    const probe = new NetworkProbe({ min_interval_ms: 1000 }, s.check)
    t.equal(await probe.refresh(10_000), false)
    t.equal(await probe.refresh(10_999), false, 'throttled: answers the known state')
    t.equal(s.calls(), 1)
    t.equal(await probe.refresh(11_000), true, 'the interval has passed')
    t.equal(s.calls(), 2)
    t.equal(probe.last_check_ms, 11_000)
  })

  t.test('runs again when the clock went back', async (t) => {
    const s = scripted(true, false)
    const probe = new NetworkProbe({ min_interval_ms: 1000 }, s.check)
    await probe.refresh(10_000)
    t.equal(await probe.refresh(9_000), false)
    t.equal(s.calls(), 2)
  })

  t.test('checks every time with an interval of 0', async (t) => {
    const s = scripted(true, false, true)
    const probe = new NetworkProbe({ min_interval_ms: 0 }, s.check)
    t.same([await probe.refresh(5), await probe.refresh(5), await probe.refresh(5)], [true, false, true])
  })

  t.test('shares one in-flight async check between concurrent refreshes', async (t) => {
    let calls = 0
    let answer: (v: boolean) => void = () => {}
    const probe = new NetworkProbe({ min_interval_ms: 0 }, () => {
      calls++
      return new Promise<boolean>((resolve) => (answer = resolve))
    })
    const first = probe.refresh(1)
    const second = probe.refresh(2)
    t.equal(first, second)
    t.equal(calls, 1)
    t.equal(probe.isOnline(2), true, 'the state changes only when the check answers')
    answer(false)
    t.same(await Promise.all([first, second]), [false, false])
    t.equal(probe.isOnline(3), false)
    const third = probe.refresh(3)
    t.not(third, first, 'a refresh after the check settled starts a new one')
    answer(true)
    t.equal(await third, true)
    t.equal(calls, 2)
  })

  t.test('counts a check that throws or rejects as offline', async (t) => {
    const probe = new NetworkProbe({ min_interval_ms: 0 }, scripted(new Error('ENOTFOUND')).check)
    t.equal(await probe.refresh(0), false)
    t.equal(probe.isOnline(0), false)
    const rejecting = new NetworkProbe({ min_interval_ms: 0 }, () => Promise.reject(new Error('ECONNREFUSED')))
    t.equal(await rejecting.refresh(0), false)
  })

  t.test('counts a check that outlives timeout_ms as offline, and checks again later', async (t) => {
    // A health URL that drops packets never answers: without a bound, every refresh (and every request awaiting one)
    // waited on that one check for ever, and the state stayed what it was before.
    let calls = 0
    const probe = new NetworkProbe({ min_interval_ms: 0, timeout_ms: 20 }, () => {
      calls++
      return calls === 1 ? new Promise<boolean>(() => {}) : true
    })
    t.equal(probe.timeout_ms, 20)
    const bounded = await Promise.race([probe.refresh(0), new Promise((r) => setTimeout(r, 2_000, 'still waiting'))])
    t.equal(bounded, false)
    t.equal(probe.isOnline(0), false)
    t.equal(await probe.refresh(1), true)
    t.equal(calls, 2)
  })

  t.test('reads a truthy answer as online', async (t) => {
    const probe = new NetworkProbe({ min_interval_ms: 0, initial_online: false }, () => 1 as unknown as boolean)
    t.equal(await probe.refresh(0), true)
  })

  t.test('refuses a non-finite now_ms', async (t) => {
    const probe = new NetworkProbe({}, () => true)
    t.throws(() => probe.refresh(NaN), {
      code: ERR_CACHE_BAD_TIME.code,
      message: 'NetworkProbe.refresh: now_ms must be a finite number of milliseconds; got NaN',
    })
  })
})
