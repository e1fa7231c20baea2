import { spawn } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import type { Test } from 'tap'
import { CacheEntry } from '../../../lib/cache/cache-entry.js'
import { CacheFile, cache_file, parse_cache_file, serialize_cache_file } from '../../../lib/cache/cache-file.js'
import { KEYS, PAD } from './fixtures/file-store-burst.js'

const BURST = fileURLToPath(new URL('./fixtures/file-store-burst.ts', import.meta.url))

t.test('serialize_cache_file', async (t) => {
  t.test('writes a versioned object keyed by cache key, compact or indented', async (t) => {
    const entries = new Map([
      ['GET /a?', new CacheEntry({ body: 'b', headers: { 'content-type': 'text/plain' }, created_at_ms: 7 })],
    ])
    t.equal(
      serialize_cache_file(entries, false),
      '{"version":1,"entries":{"GET /a?":{"status":200,"body":"b","headers":{"content-type":"text/plain"},"created_at_ms":7}}}',
    )
    t.equal(serialize_cache_file(new Map(), true), '{\n  "version": 1,\n  "entries": {}\n}\n')
  })
})

t.test('parse_cache_file', async (t) => {
  t.test('reads back what serialize_cache_file wrote, as CacheEntry objects', async (t) => {
    const entries = new Map([
      ['k', new CacheEntry({ status: 404, body: 'nf', headers: { a: '1' }, created_at_ms: 1 })],
      ['__proto__', new CacheEntry({ created_at_ms: 2 })],
    ])
    const back = parse_cache_file(serialize_cache_file(entries, true))
    t.same([...back.keys()], ['k', '__proto__'])
    t.type(back.get('k'), CacheEntry)
    t.strictSame({ ...back.get('k') }, { status: 404, body: 'nf', headers: { a: '1' }, created_at_ms: 1 })
  })

  t.test('throws on text that is not a complete cache file of this version', async (t) => {
    const expected = { message: 'expected {"version":1,"entries":{...}}' }
    t.throws(() => parse_cache_file('{"version":1,"entries":{"k":{"body":"'), SyntaxError)
    t.throws(() => parse_cache_file(''), SyntaxError)
    t.throws(() => parse_cache_file('null'), expected)
    t.throws(() => parse_cache_file('{"version":2,"entries":{}}'), expected)
    t.throws(() => parse_cache_file('{"version":1,"entries":[]}'), expected)
    t.throws(() => parse_cache_file('{"version":1,"entries":{"k":{"status":200}}}'), { code: 'FW_ERR_CACHE_BAD_ENTRY' })
  })
})

t.test('cache_file', async (t) => {
  t.test('gives one shared CacheFile per path', async (t) => {
    const dir = t.testdir()
    t.equal(cache_file(join(dir, 'a.json')), cache_file(join(dir, 'a.json')))
    t.not(cache_file(join(dir, 'a.json')), cache_file(join(dir, 'b.json')))
  })
})

/** Checks that the file holds exactly the state after puts 0..i of the burst sequence, for some i; returns i. */
function complete_version(t: Test, file: string): number {
  const entries = parse_cache_file(readFileSync(file, 'utf8'))
  const i = Math.max(...[...entries.values()].map((e) => e.created_at_ms))
  t.equal(entries.size, Math.min(i + 1, KEYS), `version ${i} has its number of keys`)
  for (let m = 0; m < Math.min(i + 1, KEYS); m++) {
    const j = i - ((((i - m) % KEYS) + KEYS) % KEYS)
    const e = entries.get(`k${m}`)
    if (e?.created_at_ms !== j || e.body !== PAD + j) t.fail(`k${m} is not the put number ${j} of version ${i}`)
  }
  return i
}

function run_and_kill(file: string, delay_ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', BURST, file], { stdio: ['ignore', 'pipe', 'inherit'] })
    child.stdout.once('data', () => setTimeout(() => child.kill('SIGKILL'), delay_ms))
    child.once('error', reject)
    child.once('exit', (_code, signal) =>
      signal === 'SIGKILL' ? resolve() : reject(new Error(`burst child ended with ${signal}`)),
    )
  })
}

t.test('CacheFile.persist', async (t) => {
  t.test('leaves a complete version on disk however often a writer is killed mid-burst', async (t) => {
    // Two files, each killed twice in a row; the two chains run side by side to halve the wait for child start-up.
    const chain = async (file: string, delays: number[]): Promise<number[]> => {
      const versions: number[] = []
      for (const delay of delays) {
        await run_and_kill(file, delay)
        versions.push(complete_version(t, file))
      }
      return versions
    }
    const dir = t.testdir()
    const runs = await Promise.all([chain(join(dir, 'a.json'), [0, 23]), chain(join(dir, 'b.json'), [9, 41])])
    for (const [first, second] of runs)
      t.ok(second! > first!, `the second burst went on from version ${first} to ${second}`)
  })

  t.test("removes temporary files left by a dead process on the next load, and keeps a live one's", async (t) => {
    const dir = t.testdir({
      'c.json': '{"version":1,"entries":{}}',
      'c.json.999999999.0.1.tmp': 'partial',
      'other.json.999999999.0.1.tmp': 'x',
    })
    writeFileSync(join(dir, `c.json.${process.ppid}.0.1.tmp`), 'a live writer')
    new CacheFile(join(dir, 'c.json')).entries()
    t.same(readdirSync(dir).sort(), ['c.json', `c.json.${process.ppid}.0.1.tmp`, 'other.json.999999999.0.1.tmp'].sort())
  })

  t.test('removes them on load when a dead process left no cache file, only its temporary file', async (t) => {
    const dir = t.testdir({ 'c.json.999999999.0.1.tmp': '{"version":1,"entries":{"k":' })
    writeFileSync(join(dir, `c.json.${process.ppid}.0.1.tmp`), 'a live writer')
    const file = new CacheFile(join(dir, 'c.json'))
    t.equal(file.entries().size, 0)
    t.same(readdirSync(dir), [`c.json.${process.ppid}.0.1.tmp`])
  })
})
