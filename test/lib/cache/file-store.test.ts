import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { threadId } from 'node:worker_threads'
import t from 'tap'
import type { Test } from 'tap'
import { parse_cache_file } from '../../../lib/cache/cache-file.js'
import { CacheEntry } from '../../../lib/cache/cache-entry.js'
import { ERR_CACHE_BAD_ENTRY, ERR_CACHE_BAD_OPTION } from '../../../lib/cache/errors.js'
import { FileStore } from '../../../lib/cache/file-store.js'
import type { FwError } from '../../../lib/errors.js'

const entry = (body: string, created_at_ms = 0): CacheEntry => new CacheEntry({ body, created_at_ms })

/** The cache warnings emitted while the test runs (they arrive on the next tick). */
function capture_warnings(t: Test): () => Promise<{ code: string; message: string }[]> {
  const seen: { code: string; message: string }[] = []
  const listener = (w: Error): void => {
    const code = (w as FwError).code
    if (code?.startsWith('FW_ERR_CACHE_')) seen.push({ code, message: w.message })
  }
  process.on('warning', listener)
  t.teardown(() => void process.off('warning', listener))
  return async () => {
    await new Promise((r) => setImmediate(r))
    return seen
  }
}

/** The bodies stored on disk, by key. */
function on_disk(file: string): Record<string, string> {
  return Object.fromEntries([...parse_cache_file(readFileSync(file, 'utf8'))].map(([k, e]) => [k, e.body]))
}

t.test('FileStore', async (t) => {
  t.test('defaults to ./.fw/cache_http.json under the working directory and touches nothing until used', async (t) => {
    const existed = existsSync(resolve('.fw/cache_http.json'))
    const store = new FileStore()
    t.equal(store.file_path, resolve('.fw/cache_http.json'))
    t.equal(existsSync(resolve('.fw/cache_http.json')), existed)
    t.equal(store.pretty_json, false)
  })

  t.test('refuses a bad file_path or pretty_json', async (t) => {
    t.throws(() => new FileStore({ file_path: '' }), {
      code: ERR_CACHE_BAD_OPTION.code,
      message: 'FileStore: file_path must be a non-empty string; got ""',
    })
    t.throws(() => new FileStore({ pretty_json: 'yes' as unknown as boolean }), {
      code: ERR_CACHE_BAD_OPTION.code,
      message: 'FileStore: pretty_json must be a boolean; got "yes"',
    })
  })

  t.test('reads the file on first access, not when made', async (t) => {
    const dir = t.testdir({ 'c.json': '{"version":1,"entries":{}}' })
    const store = new FileStore({ file_path: join(dir, 'c.json') })
    writeFileSync(
      join(dir, 'c.json'),
      JSON.stringify({ version: 1, entries: { k: { status: 200, body: 'late', headers: {}, created_at_ms: 3 } } }),
    )
    t.equal(store.get('k')?.body, 'late')
    t.type(store.get('k'), CacheEntry)
  })

  t.test('creates the missing folders on the first write and writes compact JSON', async (t) => {
    const file = join(t.testdir(), 'deep', 'er', 'c.json')
    const store = new FileStore({ file_path: file })
    t.equal(store.get('k'), undefined)
    t.equal(existsSync(file), false, 'a read creates nothing')
    store.put('k', new CacheEntry({ body: 'v', headers: { 'X-A': '1' }, created_at_ms: 5 }))
    await store.flush()
    t.equal(
      readFileSync(file, 'utf8'),
      '{"version":1,"entries":{"k":{"status":200,"body":"v","headers":{"x-a":"1"},"created_at_ms":5}}}',
    )
  })

  t.test('indents the JSON with pretty_json', async (t) => {
    const file = join(t.testdir(), 'c.json')
    const store = new FileStore({ file_path: file, pretty_json: true })
    store.put('k', entry('v', 1))
    await store.flush()
    t.equal(
      readFileSync(file, 'utf8'),
      [
        '{',
        '  "version": 1,',
        '  "entries": {',
        '    "k": {',
        '      "status": 200,',
        '      "body": "v",',
        '      "headers": {},',
        '      "created_at_ms": 1',
        '    }',
        '  }',
        '}',
        '',
      ].join('\n'),
    )
  })

  t.test('writes every change: put, replace, erase, eraseIf and clear', async (t) => {
    const file = join(t.testdir(), 'c.json')
    const store = new FileStore({ file_path: file })
    store.put('a', entry('1', 1))
    store.put('b', entry('2', 2))
    store.put('c', entry('3', 3))
    await store.flush()
    t.same(on_disk(file), { a: '1', b: '2', c: '3' })
    store.put('a', entry('1b', 4))
    await store.flush()
    t.same(on_disk(file), { a: '1b', b: '2', c: '3' })
    store.erase('b')
    await store.flush()
    t.same(on_disk(file), { a: '1b', c: '3' })
    t.equal(
      store.eraseIf((_k, e) => e.created_at_ms === 3),
      1,
    )
    await store.flush()
    t.same(on_disk(file), { a: '1b' })
    t.equal(
      store.eraseIf(() => false),
      0,
    )
    store.clear()
    await store.flush()
    t.same(on_disk(file), {})
    t.equal(store.size, 0)
  })

  t.test('leaves the file alone when nothing changed', async (t) => {
    const dir = t.testdir({ 'c.json': '{"version":1,"entries":{}}' })
    const store = new FileStore({ file_path: join(dir, 'c.json') })
    store.erase('missing')
    store.clear()
    store.eraseIf(() => true)
    await store.flush()
    t.equal(readFileSync(join(dir, 'c.json'), 'utf8'), '{"version":1,"entries":{}}')
  })

  t.test('checks a plain entry before storing it, so the file always loads again', async (t) => {
    const file = join(t.testdir(), 'c.json')
    const store = new FileStore({ file_path: file })
    t.throws(() => store.put('k', { status: 0, body: '', headers: {}, created_at_ms: 0 }), {
      code: ERR_CACHE_BAD_ENTRY.code,
    })
    store.put('k', { status: 200, body: 'ok', headers: { 'X-Y': 'z' }, created_at_ms: 0 })
    t.type(store.get('k'), CacheEntry)
    t.same(store.get('k')?.headers, { 'x-y': 'z' })
    await store.flush()
    t.equal(existsSync(file), true)
  })

  t.test('shares entries between stores on one resolved path', async (t) => {
    const dir = t.testdir({ sub: {} })
    const a = new FileStore({ file_path: join(dir, 'c.json') })
    const b = new FileStore({ file_path: join(dir, 'sub', '..', 'c.json'), pretty_json: true })
    a.put('k', entry('from a'))
    t.equal(b.get('k')?.body, 'from a')
    b.put('k2', entry('from b'))
    t.equal(a.get('k2')?.body, 'from b')
    await b.flush()
    t.same(on_disk(join(dir, 'c.json')), { k: 'from a', k2: 'from b' })
    t.match(
      readFileSync(join(dir, 'c.json'), 'utf8'),
      /^{\n {2}"version"/,
      'the last writer wrote with its own formatting',
    )
  })

  t.test('keeps everything when the file is read again from disk', async (t) => {
    const file = join(t.testdir(), 'c.json')
    const store = new FileStore({ file_path: file })
    store.put(
      'GET /ü? |h:accept=*/*;',
      new CacheEntry({ status: 404, body: '{"a":"ü\\n"}', headers: { etag: '"x"' }, created_at_ms: 1.5 }),
    )
    await store.flush()
    const back = parse_cache_file(readFileSync(file, 'utf8')).get('GET /ü? |h:accept=*/*;')
    t.strictSame({ ...back }, { status: 404, body: '{"a":"ü\\n"}', headers: { etag: '"x"' }, created_at_ms: 1.5 })
  })
})

t.test('FileStore faults', async (t) => {
  t.test('starts empty without a warning when the file or its folder is missing', async (t) => {
    const warnings = capture_warnings(t)
    const store = new FileStore({ file_path: join(t.testdir(), 'no', 'such', 'c.json') })
    t.equal(store.get('k'), undefined)
    t.equal(store.size, 0)
    t.same(await warnings(), [])
  })

  t.test(
    'removes temporary files an earlier process with this pid left (a restarted container) and never collides with them',
    async (t) => {
      // Node as pid 1 in a container killed mid-write (OOM, kill -9) and restarted: the new process has the same pid and
      // thread id. Its leftovers were kept for good, as if they were its own, and its own write of the same number
      // failed with EEXIST.
      const dir = t.testdir({ 'c.json': '{"version":1,"entries":{}}' })
      const file = join(dir, 'c.json')
      const hour_ago = new Date(Date.now() - 3_600_000)
      for (let n = 1; n <= 3000; n++) {
        const temp = `${file}.${process.pid}.${threadId}.${n}.tmp`
        writeFileSync(temp, '{"version":1,"entr')
        utimesSync(temp, hour_ago, hour_ago)
      }
      const warnings = capture_warnings(t)
      const store = new FileStore({ file_path: file })
      t.equal(store.size, 0)
      t.same(
        readdirSync(dir).filter((n) => n.endsWith('.tmp')),
        [],
        'the leftovers are gone',
      )
      for (let i = 0; i < 5; i++) {
        store.put(`k${i}`, entry(`v${i}`))
        await store.flush()
      }
      t.same(Object.keys(on_disk(file)).sort(), ['k0', 'k1', 'k2', 'k3', 'k4'])
      t.same(await warnings(), [])
    },
  )

  t.test('never writes through a temporary file whose name another writer holds', async (t) => {
    // Two containers on one volume both run node as pid 1, thread 0: their temporary names were the same sequence.
    const file = join(t.testdir(), 'c.json')
    const store = new FileStore({ file_path: file })
    t.equal(store.size, 0)
    for (let n = 1; n <= 3000; n++) writeFileSync(`${file}.${process.pid}.${threadId}.${n}.tmp`, 'another writer')
    const warnings = capture_warnings(t)
    store.put('k', entry('v'))
    await store.flush()
    t.same(on_disk(file), { k: 'v' })
    t.same(await warnings(), [])
  })

  for (const [name, text] of [
    ['corrupt JSON', 'this is not json'],
    ['truncated JSON', '{"version":1,"entries":{"k":{"status":200,"body":"abc'],
    ['JSON of another shape', '{"version":1,"entries":{"k":{"status":"200"}}}'],
  ] as const) {
    t.test(`sets a file of ${name} aside, warns and starts empty`, async (t) => {
      const warnings = capture_warnings(t)
      const dir = t.testdir({ 'c.json': text })
      const file = join(dir, 'c.json')
      const store = new FileStore({ file_path: file })
      t.equal(store.get('k'), undefined)
      const aside = readdirSync(dir).filter((n) => /^c\.json\.corrupt-\d+$/.test(n))
      t.equal(aside.length, 1)
      t.equal(readFileSync(join(dir, aside[0]!), 'utf8'), text, 'the bad file is kept for inspection')
      t.equal(existsSync(file), false)
      const seen = await warnings()
      t.equal(seen.length, 1)
      t.equal(seen[0]!.code, 'FW_ERR_CACHE_FILE_CORRUPT')
      t.match(seen[0]!.message, `FileStore: ${file} is not a readable cache file (`)
      t.match(seen[0]!.message, `); moved it to ${join(dir, aside[0]!)}; starting empty`)
      store.put('k', entry('fresh'))
      await store.flush()
      t.same(on_disk(file), { k: 'fresh' })
    })
  }

  t.test('warns once when the folder cannot be written, and keeps working in memory', async (t) => {
    const warnings = capture_warnings(t)
    const dir = t.testdir({ ro: {}, blocker: 'a regular file' })
    // chmod does not stop root, so as root the file goes under a regular file, where mkdir fails for anyone.
    const as_root = process.getuid?.() === 0
    const folder = as_root ? join(dir, 'blocker', 'sub') : join(dir, 'ro')
    if (!as_root) chmodSync(folder, 0o500)
    t.teardown(() => chmodSync(join(dir, 'ro'), 0o700))
    const file = join(folder, 'c.json')
    const store = new FileStore({ file_path: file })
    store.put('a', entry('1'))
    await t.rejects(store.flush(), { code: 'FW_ERR_CACHE_FILE_UNWRITABLE' }, 'flush says the write failed')
    store.put('b', entry('2'))
    await t.rejects(store.flush(), { code: 'FW_ERR_CACHE_FILE_UNWRITABLE' })
    t.equal(store.get('a')?.body, '1')
    t.equal(store.get('b')?.body, '2')
    t.equal(existsSync(file), false)
    const seen = await warnings()
    t.equal(seen.length, 1, 'one warning for two failed writes')
    t.equal(seen[0]!.code, 'FW_ERR_CACHE_FILE_UNWRITABLE')
    t.match(seen[0]!.message, `FileStore: cannot write ${file} (`)
    t.match(seen[0]!.message, as_root ? 'ENOTDIR' : 'EACCES')
    t.match(seen[0]!.message, '); entries stay in memory and every later change retries the write')
    t.same(
      readdirSync(as_root ? dir : folder).filter((n) => n.endsWith('.tmp')),
      [],
      'no temporary file is left behind',
    )
  })

  t.test('writes again once the folder can be written, and warns again on a later failure', async (t) => {
    const warnings = capture_warnings(t)
    const dir = t.testdir({ blocker: 'a regular file' })
    const file = join(dir, 'blocker', 'c.json')
    const store = new FileStore({ file_path: file })
    store.put('a', entry('1'))
    await store.flush().catch(() => {})
    // Replace the blocking file by a folder: the next write succeeds and writes everything kept in memory.
    rmSync(join(dir, 'blocker'))
    mkdirSync(join(dir, 'blocker'))
    store.put('b', entry('2'))
    await store.flush()
    t.same(on_disk(file), { a: '1', b: '2' })
    rmSync(join(dir, 'blocker'), { recursive: true })
    writeFileSync(join(dir, 'blocker'), 'a regular file again')
    store.put('c', entry('3'))
    await store.flush().catch(() => {})
    t.same(
      (await warnings()).map((w) => w.code),
      ['FW_ERR_CACHE_FILE_UNWRITABLE', 'FW_ERR_CACHE_FILE_UNWRITABLE'],
    )
  })

  t.test('keeps entries in memory only, and the path untouched, when the path cannot be read', async (t) => {
    const warnings = capture_warnings(t)
    const dir = t.testdir({ 'c.json': { 'inside.txt': 'kept' } })
    const file = join(dir, 'c.json')
    const store = new FileStore({ file_path: file })
    store.put('k', entry('v'))
    // Nothing ever reaches the file: flush says so rather than resolving as if the entry were on disk.
    await t.rejects(store.flush(), {
      code: 'FW_ERR_CACHE_FILE_UNREADABLE',
      message: `FileStore: cannot read ${file} (EISDIR: illegal operation on a directory, read); keeping entries in memory only and leaving the file untouched`,
    })
    t.equal(store.get('k')?.body, 'v')
    t.same(readdirSync(file), ['inside.txt'])
    t.same(readdirSync(dir), ['c.json'])
    const seen = await warnings()
    t.same(
      seen.map((w) => w.code),
      ['FW_ERR_CACHE_FILE_UNREADABLE'],
    )
    t.match(seen[0]!.message, `FileStore: cannot read ${file} (`)
    t.match(seen[0]!.message, 'EISDIR')
    t.match(seen[0]!.message, '); keeping entries in memory only and leaving the file untouched')
  })
})

/** The longest, the median and the sum of put durations in ms. */
function put_times(times: number[]): { longest: number; median: number; sum: number } {
  const sorted = [...times].sort((a, b) => a - b)
  return {
    longest: sorted.at(-1)!,
    median: sorted[sorted.length >> 1]!,
    sum: times.reduce((a, b) => a + b, 0),
  }
}

// The old store wrote the whole file in every put (27 s for these 1,000 puts, up to 60 ms each). Timing each put is
// measured with margins a loaded 2-core machine keeps (the median, and the sum: a GC pause or a preemption may land
// in any one put), and the synchronous
// writes are counted by the file: none may exist until the write that follows the puts.
t.test('FileStore cost', async (t) => {
  const body = 'x'.repeat(4096)
  const timed_put = (store: FileStore, times: number[], key: string, value: string, i: number): void => {
    const started = performance.now()
    store.put(key, entry(value, i))
    times.push(performance.now() - started)
  }

  t.test('1,000 puts of 4 KB write nothing synchronously and are on disk within 3 s', async (t) => {
    const file = join(t.testdir(), 'c.json')
    const store = new FileStore({ file_path: file })
    t.equal(store.size, 0, 'the first access reads the file (here: finds none) before the puts are timed')
    const started = performance.now()
    const times: number[] = []
    for (let i = 0; i < 1000; i++) timed_put(store, times, `k${i}`, body + i, i)
    t.equal(existsSync(file), false, 'no put wrote the file on the event loop')
    await store.flush()
    const total = performance.now() - started
    t.equal(parse_cache_file(readFileSync(file, 'utf8')).size, 1000, 'every put is on disk after flush')
    const { median, sum } = put_times(times)
    t.ok(median < 1, `a put takes under 1 ms (median ${median.toFixed(3)} ms)`)
    t.ok(sum < 1000, `the puts held the loop under 1 s in all (${sum.toFixed(0)} ms)`)
    t.ok(total < 3000, `1,000 puts and the flush took under 3 s (${total.toFixed(0)} ms)`)
  })

  t.test('puts at 1,000 entries, each in its own turn of the event loop, stay short and coalesce', async (t) => {
    const file = join(t.testdir(), 'c.json')
    const store = new FileStore({ file_path: file })
    for (let i = 0; i < 1000; i++) store.put(`k${i}`, entry(body + i, i))
    await store.flush()
    const started = performance.now()
    const times: number[] = []
    for (let i = 0; i < 1000; i++) {
      timed_put(store, times, `k${i}`, `${body}b${i}`, i)
      await new Promise((resolve) => setImmediate(resolve))
    }
    await store.flush()
    const total = performance.now() - started
    t.equal(parse_cache_file(readFileSync(file, 'utf8')).get('k999')?.body, `${body}b999`, 'the last put is on disk')
    const { longest, median, sum } = put_times(times)
    t.ok(median < 1, `a put takes under 1 ms (median ${median.toFixed(3)} ms, longest ${longest.toFixed(2)} ms)`)
    t.ok(sum < 1000, `the puts held the loop under 1 s in all (${sum.toFixed(0)} ms)`)
    t.ok(total < 3000, `1,000 puts and the flush took under 3 s (${total.toFixed(0)} ms)`)
  })
})

/** A flat 4 KB string starting with `tag` (a concatenation would be a rope that only serializing flattens). */
const flat_body = (tag: string): string => Buffer.alloc(4096, 'x').fill(tag, 0, tag.length).toString('latin1')

/** The bytes the heap holds after a full collection. */
function heap_after_gc(): number {
  setFlagsFromString('--expose-gc')
  ;(runInNewContext('gc') as () => void)()
  return process.memoryUsage().heapUsed
}

// Each put's cost is its entry and one map slot: a store that kept a serialized copy per entry doubled what every
// young-generation collection had to copy, and those collections were the longest puts (up to 11 ms at 1,000 entries).
t.test('FileStore memory', async (t) => {
  t.test('holds each entry once: 1,000 puts of 4 KB keep no second copy of their bodies', async (t) => {
    const store = new FileStore({ file_path: join(t.testdir(), 'c.json') })
    const bodies = Array.from({ length: 1000 }, (_, i) => flat_body(`k${i}:`))
    const before = heap_after_gc()
    for (let i = 0; i < 1000; i++) store.put(`k${i}`, entry(bodies[i]!, i))
    await store.flush()
    const grown = heap_after_gc() - before
    t.ok(
      grown < 1.5 * 1024 * 1024,
      `the entries add under 1.5 MB beside their bodies (${(grown / 1048576).toFixed(2)} MB)`,
    )
    t.equal(store.get('k999')?.body, bodies[999])
  })
})
