// FileStore under kill -9: a child writes a growing counter in a loop and is killed at a random moment, many times
// over; the file must always hold the last acknowledged version or the one after it, never a torn, empty or older one.
// FW_CRASH_ROUNDS sets the count (default 10 in `npm test`; `npm run test:crash` runs 200).
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { parse_cache_file } from '../../lib/cache/cache-file.js'
import { bundle } from '../helpers/child-bundle.js'
import { plain_node } from '../helpers/plain-node.js'
import { body_of } from './fixtures/counter-body.js'

const ROUNDS = Number(process.env.FW_CRASH_ROUNDS ?? 10)
// A round is a node start and a kill: 3.3 s on average in a 200-round run on a busy shared machine, so allow 6.
t.setTimeout(30_000 + ROUNDS * 6000)

/**
 * Runs the writer until it acknowledged at least one write, kills it with SIGKILL after `delay_ms`, and answers the
 * last value it acknowledged.
 */
async function crash_once(script: string, file: string, delay_ms: number): Promise<number> {
  const child = spawn(...plain_node([script, file]), { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.setEncoding('utf8')
  const first = new Promise<void>((resolve) =>
    child.stdout.on('data', (d: string) => {
      out += d
      if (out.includes('\n')) resolve()
    }),
  )
  const exited = once(child, 'exit')
  await Promise.race([first, exited])
  await new Promise((resolve) => setTimeout(resolve, delay_ms))
  child.kill('SIGKILL')
  const [, signal] = await exited
  if (signal !== 'SIGKILL') throw new Error(`the writer ended by itself before the kill:\n${out}`)
  const acks = [...out.matchAll(/^n=(\d+) stored=true$/gm)]
  return Number(acks.at(-1)?.[1] ?? 0)
}

/**
 * The counter a cache file holds, or -1 when the file is not a complete version (unparsable, empty, or a body cut
 * short).
 */
function counter_in(text: string): number {
  try {
    const body = parse_cache_file(text).get('n')?.body ?? ''
    const n = Number(body.split(':')[0])
    return body === body_of(n) ? n : -1
  } catch {
    return -1
  }
}

t.test('FileStore.put under kill -9', async (t) => {
  const script = bundle(t, 'test/reliability/fixtures/file-store-writer.ts')
  const dir = t.testdir()
  const file = join(dir, 'cache.json')
  const torn: string[] = []
  let kills_mid_write = 0
  for (let round = 0; round < ROUNDS; round++) {
    const acked = await crash_once(script, file, Math.floor(Math.random() * 25))
    const text = readFileSync(file, 'utf8')
    const n = counter_in(text)
    if (n !== acked && n !== acked + 1)
      torn.push(`round ${round}: acknowledged ${acked}, file holds ${n === -1 ? `${text.length} bad bytes` : n}`)
    if (n === acked + 1) kills_mid_write++
  }
  t.same(torn, [], `after ${ROUNDS} kills the file is always the last acknowledged version or the next one`)
  const temps = readdirSync(dir).filter((name) => name.endsWith('.tmp'))
  t.ok(temps.length <= 1, `temporary files of killed writers are removed by the next one (left: ${temps.length})`)
  t.comment(`${ROUNDS} kills; ${kills_mid_write} landed between a rename and its acknowledgement`)
})
