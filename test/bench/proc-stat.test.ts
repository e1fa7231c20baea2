// bench/wrk.ts reads a server's CPU time and minor page faults from /proc/<pid>/stat; bench/cpu.ts pools counts per
// request into the rows shown beside the CPU figure.
import { readFile } from 'node:fs/promises'
import t from 'tap'
import { count_row } from '../../bench/cpu.js'
import { stat_cpu_us, stat_minor_faults } from '../../bench/wrk.js'

// Fields 3-15 of a stat line: state, ppid, pgrp, session, tty, tpgid, flags, minflt=4242, cminflt, majflt, cmajflt,
// utime=300, stime=200; the command name holds a space and a parenthesis, as a process may name itself.
const LINE = '123 (node (x) y) S 1 123 123 0 -1 4194304 4242 7 1 0 300 200 0 0 20 0 7 0 100 1000 50'

t.test('the stat fields are counted after the last parenthesis of the command name', async (t) => {
  t.equal(stat_minor_faults(LINE), 4242)
  const ticks = 500
  // CLK_TCK is 100 on Linux unless the kernel was built otherwise: 500 ticks are 5 s.
  t.equal(stat_cpu_us(LINE), (ticks / 100) * 1e6)
})

t.test("this process's minor page faults are read and grow when it touches new memory", async (t) => {
  const faults = async (): Promise<number> => stat_minor_faults(await readFile('/proc/self/stat', 'utf8'))
  const before = await faults()
  // 64 MiB allocated and written: the kernel maps each 4 KiB page on its first touch.
  const buf = Buffer.allocUnsafeSlow(64 * 1024 * 1024)
  buf.fill(1)
  const after = await faults()
  t.ok(Number.isInteger(before) && before > 0, `a count: ${before}`)
  t.ok(after - before >= (64 * 1024 * 1024) / 4096 / 2, `at least half the pages faulted: ${after - before}`)
})

t.test('count_row pools the counts of every round over their requests, and keeps each round', async (t) => {
  const round = (page_faults: number, full: number, requests: number) => ({
    allocated: { bytes: 0, collections: full, full },
    requests,
    page_faults,
  })
  const figures = [round(100, 1, 1000), round(0, 0, 3000)]
  const faults = count_row('upload', 'fw', figures, (f) => f.page_faults, 'page faults/request')
  t.same(faults, {
    scenario: 'upload',
    competitor: 'fw',
    median: 100 / 4000,
    rounds: [0.1, 0],
    unit: 'page faults/request',
    lower_is_better: true,
  })
  const gcs = count_row('upload', 'fw', figures, (f) => f.allocated.full * 1000, 'full GCs/1,000 requests')
  t.equal(gcs.median, 1000 / 4000)
  t.same(gcs.rounds, [1, 0])
})
