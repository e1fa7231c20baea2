import t from 'tap'
import { RequestOutcome, type CacheContext } from '../../../lib/cache/cache-context.js'
import {
  contextFromProbe,
  contextFromProbeAndOutcome,
  contextNetworkError,
  contextOffline,
  contextOnline,
} from '../../../lib/cache/context-mapper.js'
import { NetworkProbe } from '../../../lib/cache/network-probe.js'

const flags = (c: CacheContext): [boolean, boolean] => [c.offline, c.network_error]
const online = { isOnline: () => true }
const offline = { isOnline: () => false }

t.test('contextFromProbe', async (t) => {
  t.test('sets offline exactly when the probe reports offline', async (t) => {
    t.same(flags(contextFromProbe(online, 0)), [false, false])
    t.same(flags(contextFromProbe(offline, 0)), [true, false])
  })

  t.test('passes now_ms to the probe and follows a NetworkProbe after its refresh', async (t) => {
    const seen: number[] = []
    contextFromProbe({ isOnline: (now) => (seen.push(now), true) }, 1234)
    t.same(seen, [1234])
    const probe = new NetworkProbe({ min_interval_ms: 0 }, () => false)
    t.same(flags(contextFromProbe(probe, 0)), [false, false])
    await probe.refresh(0)
    t.same(flags(contextFromProbe(probe, 0)), [true, false])
  })
})

t.test('contextFromProbeAndOutcome', async (t) => {
  t.test('adds network_error exactly when the outcome is NetworkError', async (t) => {
    t.same(flags(contextFromProbeAndOutcome(online, 0, RequestOutcome.Ok)), [false, false])
    t.same(flags(contextFromProbeAndOutcome(online, 0, RequestOutcome.NetworkError)), [false, true])
    t.same(flags(contextFromProbeAndOutcome(offline, 0, RequestOutcome.Ok)), [true, false])
    t.same(flags(contextFromProbeAndOutcome(offline, 0, RequestOutcome.NetworkError)), [true, true])
  })
})

t.test('contextOnline, contextOffline, contextNetworkError', async (t) => {
  t.test('gives the three fixed contexts', async (t) => {
    t.same(
      [flags(contextOnline()), flags(contextOffline()), flags(contextNetworkError())],
      [
        [false, false],
        [true, false],
        [false, true],
      ],
    )
  })
})
