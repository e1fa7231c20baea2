// The CI guard's rule: a gross regression fails it, one noisy try does not, and a machine too busy to measure fails it
// with its own verdict rather than passing.
import t from 'tap'
import { guard_verdict, LIMIT, noisy, TRIES } from '../../bench/guard-rule.js'

const measured_ok = { cpu: 1.05, control: 0.98 }
const measured_over = { cpu: 1.56, control: 1.04 }
const noisy_over = { cpu: 1.56, control: 1.31 }

t.test('passes at the first measured try at or under the limit', async (t) => {
  t.equal(guard_verdict([measured_ok]), 'pass')
  t.equal(guard_verdict([{ cpu: LIMIT, control: 1 }]), 'pass', 'the limit itself passes')
  t.equal(guard_verdict([measured_over, measured_ok]), 'pass', 'one measured try over it is not enough')
})

t.test('fails at the second measured try above the limit, noisy tries between them or not', async (t) => {
  t.equal(guard_verdict([measured_over]), 'more')
  t.equal(guard_verdict([measured_over, measured_over]), 'fail')
  t.equal(guard_verdict([measured_over, noisy_over, { cpu: 1.36, control: 1 / 1.2 }]), 'fail')
})

t.test('does not count a try whose control pair landed beyond 1.2x apart, either way', async (t) => {
  t.ok(noisy({ cpu: 1, control: 1.21 }))
  t.ok(noisy({ cpu: 1, control: 0.82 }))
  t.notOk(noisy({ cpu: 1, control: 1.2 }))
  t.notOk(noisy({ cpu: 1, control: 1 / 1.2 }))
  t.equal(guard_verdict([noisy_over, noisy_over]), 'more', 'two noisy tries over the limit decide nothing')
  t.equal(guard_verdict([{ cpu: 1.02, control: 1.25 }]), 'more', 'nor does a noisy try under it')
})

t.test(`fails when ${TRIES} tries give no verdict: too busy to tell is not a pass`, async (t) => {
  t.equal(guard_verdict(Array(TRIES - 1).fill(noisy_over)), 'more')
  t.equal(guard_verdict(Array(TRIES).fill(noisy_over)), 'fail')
  t.equal(guard_verdict([...Array(TRIES - 1).fill(noisy_over), measured_over]), 'fail')
})
