// `npx tsx bench/next-tick.ts`: what one idle full collection does to `process.nextTick` in a process that loads no
// framework at all, on each Node the bench runs. Node builds each tick as an object literal with computed symbol keys,
// and V8 keeps the maps (hidden classes) of those properties only while something holds them: a full collection while
// no tick is pending frees them, the next tick builds new ones, and the literal's property sites, whose feedback goes
// from monomorphic straight to megamorphic on a second map, take V8's runtime path from then on, for the life of the
// process. A heap snapshot, which the bench's `settle` takes by signal, runs such a collection. The child prints
// nanoseconds per `nextTick` call (the median of 200 batches of 1,000) before and after, and the feedback state of
// each of the literal's property sites, read with V8's `%DebugPrint`.
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { node_binaries } from './wrk.js'

const CHILD = String.raw`
const noop = () => {}
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1]
async function per_call() {
  const batches = []
  for (let b = 0; b < 200; b++) {
    const t = process.hrtime.bigint()
    for (let i = 0; i < 1000; i++) process.nextTick(noop)
    batches.push(Number(process.hrtime.bigint() - t) / 1000)
    await new Promise((r) => setImmediate(r))
  }
  return median(batches)
}
const before = await per_call()
// What the bench's settle does: a heap snapshot, which collects in full (reducing memory) first; then no tick is pending.
// The snapshot goes to a folder the parent deletes.
const { writeHeapSnapshot } = await import('node:v8')
writeHeapSnapshot(process.env.FW_SNAPSHOT)
const after = await per_call()
console.log(JSON.stringify({ before, after }))
;%DebugPrint(process.nextTick)
`

const run = promisify(execFile)
console.log('node          ns per nextTick, fresh   after a heap snapshot   literal site (feedback)')
for (const node of await node_binaries()) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'fw-next-tick-'))
  const { stdout } = await run(node.path, ['--allow-natives-syntax', '--input-type=module', '-e', CHILD], {
    env: { ...process.env, FW_SNAPSHOT: path.join(dir, 'heap.heapsnapshot') },
    maxBuffer: 1 << 24,
  }).finally(() => rm(dir, { recursive: true, force: true }))
  const figures = JSON.parse(stdout.split('\n').find((l) => l.startsWith('{'))!) as { before: number; after: number }
  const site = /slot #\d+ DefineKeyedOwnPropertyInLiteral (\w+)/g
  const states = [...stdout.matchAll(site)].map((m) => m[1]).join(' ') || 'n/a'
  console.log(
    `${node.label.padEnd(14)}${figures.before.toFixed(0).padStart(10)}${figures.after.toFixed(0).padStart(26)}              ${states}`,
  )
}
