// bench/allocations.ts: what a server's V8 GC trace (`--trace-gc --trace-gc-nvp`) says it allocated, how many
// collections ran and how many of them were full, read from lines V8 itself writes; and the port the server announced.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { PassThrough } from 'node:stream'
import t from 'tap'
import { between, GC_TRACE_FLAGS, server_output } from '../../bench/allocations.js'
import { plain_node } from '../helpers/plain-node.js'

/** One GC line as Node 20 and 24 write it with both flags (abridged: the fields read stay in place). */
const line = (kind: 's' | 'mc', allocated: number): string =>
  `[1:0x1]  100 ms: pause=1.0 mutator=2.0 gc=${kind} reduce_memory=0 time_to_safepoint=0.00 allocated=${allocated} promoted=0\n`

t.test('server_output counts bytes, collections and full collections', async (t) => {
  const stdout = new PassThrough()
  const out = server_output('probe', stdout, new Promise(() => undefined))
  stdout.write(line('s', 1000))
  stdout.write('listening 4321\n')
  const before = await out.allocated()
  // A line split across two writes is read whole.
  const full = line('mc', 5000)
  stdout.write(full.slice(0, 30))
  stdout.write(full.slice(30) + line('s', 700))
  const after = await out.allocated()
  t.equal(await out.port, 4321)
  t.same(before, { bytes: 1000, collections: 1, full: 0 })
  t.same(after, { bytes: 6700, collections: 3, full: 1 })
  t.same(between(before, after), { bytes: 5700, collections: 2, full: 1 })
})

t.test("a real Node process's full collections are counted, and its scavenges are not", async (t) => {
  // Two forced full collections (gc() is a mark-compact) and the young-generation ones a short burst of garbage makes.
  const child = spawn(
    ...plain_node([
      ...GC_TRACE_FLAGS,
      '--expose-gc',
      '-e',
      "process.stdout.write('listening 1\\n'); let a = []; for (let i = 0; i < 3e5; i++) a.push({ i }); a = null; gc(); gc()",
    ]),
    // Without the test runner's preloads, whose loading collects on its own.
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  // 'close', not 'exit': this process ends at once, and its stdout must be read to the end first.
  const exited = once(child, 'close').then(([code]) => code as number | null)
  const out = server_output('node', child.stdout!, exited)
  t.equal(await out.port, 1)
  await exited
  const seen = await out.allocated()
  // V8 may add a full collection of its own while the burst grows the heap.
  t.ok(seen.full >= 2, `the two gc() calls are among the ${seen.full} full collections`)
  t.ok(seen.collections > seen.full, `scavenges ran too (${seen.collections} collections in all)`)
  t.ok(seen.bytes > 3e5 * 16, `allocated ${seen.bytes} bytes`)
})
