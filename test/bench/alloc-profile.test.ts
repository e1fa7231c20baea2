// bench/alloc-profile.ts: the bytes a process allocates by function, sampled over the inspector from outside, with the
// objects already collected counted; and how they are summed per unit of load.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import t from 'tap'
import { alloc_summary, start_alloc_sampling } from '../../bench/alloc-profile.js'
import { free_port } from '../helpers/redis-server.js'

// Allocates 2,000 arrays of 1,000 doubles (about 8 KB each, 16 MB in all) when told to, keeping none of them.
const CHILD = `
function make_garbage() {
  let kept = 0
  for (let i = 0; i < 2000; i++) kept += new Array(1000).fill(i + 0.5).length
  return kept
}
process.stdin.once('data', () => { make_garbage(); process.stdout.write('done\\n') })
process.stdout.write('ready\\n')
`

t.test('the bytes a function allocated are attributed to it, collected or not', async (t) => {
  const port = await free_port()
  const child = spawn(process.execPath, [`--inspect=127.0.0.1:${port}`, '-e', CHILD], {
    stdio: ['pipe', 'pipe', 'ignore'],
  })
  t.teardown(() => void child.kill('SIGKILL'))
  await once(child.stdout, 'data')
  const sampling = await start_alloc_sampling(port)
  child.stdin.write('go\n')
  await once(child.stdout, 'data')
  const bytes = await sampling.stop()
  // Named as `name file:line`: the function starts on the script's second line.
  const made = bytes.get('make_garbage [eval]:2') ?? 0
  // 2,000 × (1,000 × 8 B + headers): sampled, so within a few percent.
  t.ok(made > 15e6 && made < 17.5e6, `make_garbage: ${made} B`)
  const total = [...bytes.values()].reduce((a, b) => a + b, 0)
  t.ok(made / total > 0.9, 'nothing else in the process allocated as much')
})

t.test('alloc_summary gives bytes per unit, largest first, and the total', async (t) => {
  const summary = alloc_summary(
    new Map([
      ['small x.js:1', 100],
      ['big y.js:2', 3000],
      ['mid z.js:3', 900],
    ]),
    10,
    2,
  )
  t.equal(
    summary,
    [
      'sampled allocations: 400.0 B per unit over 10 units',
      '',
      'functions (bytes allocated per unit):',
      '   300.0 B  big y.js:2',
      '    90.0 B  mid z.js:3',
    ].join('\n'),
  )
})
