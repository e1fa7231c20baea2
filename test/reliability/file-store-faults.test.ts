// FileStore when the disk refuses: a full file system (ENOSPC, a 64 KiB tmpfs) and a folder the process may not write
// (EACCES, a child running as nobody, since root ignores permissions). Both answer a coded warning, never a crash.
// Mounting needs root; without it these tests are skipped and say so.
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import type { Test } from 'tap'
import { parse_cache_file } from '../../lib/cache/cache-file.js'
import { CacheEntry } from '../../lib/cache/cache-entry.js'
import { FileStore } from '../../lib/cache/file-store.js'
import * as fw from '../../index.js'
import { build } from '../helpers/build.js'
import { bundle, run_as_nobody } from '../helpers/child-bundle.js'

const as_root = process.getuid?.() === 0

/** The FileStore warnings emitted while the test runs (they arrive on the next tick). */
function warnings(t: Test): () => Promise<string[]> {
  const seen: string[] = []
  const listener = (w: Error): void => void seen.push(`${(w as Error & { code?: string }).code} ${w.message}`)
  process.on('warning', listener)
  t.teardown(() => void process.off('warning', listener))
  return async () => {
    await new Promise((resolve) => setImmediate(resolve))
    return seen
  }
}

/** A 64 KiB tmpfs mounted for the test, unmounted at its end; undefined when mounting is not allowed. */
function small_disk(t: Test): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'fw-enospc-'))
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir]).status === 0
  t.teardown(() => {
    if (mounted) spawnSync('umount', [dir])
    rmSync(dir, { recursive: true, force: true })
  })
  return mounted ? dir : undefined
}

const big = (tag: string): CacheEntry => new CacheEntry({ body: tag.repeat(100 * 1024), created_at_ms: 1 })

t.test(
  'FileStore on a full disk (ENOSPC)',
  { skip: as_root ? false : 'mounting a small tmpfs needs root' },
  async (t) => {
    const dir = small_disk(t)
    if (dir === undefined) return void t.pass('skipped: mount -t tmpfs was refused')
    const file = join(dir, 'c.json')
    const seen = warnings(t)
    const store = new FileStore({ file_path: file })
    store.put('small', new CacheEntry({ body: 'kept', created_at_ms: 1 }))
    await store.flush()
    t.doesNotThrow(() => store.put('big', big('x')), 'a write that does not fit does not throw')
    await t.rejects(store.flush(), { code: 'FW_ERR_CACHE_FILE_UNWRITABLE' }, 'flush says the write failed')
    const [first] = await seen()
    t.match(first, /^FW_ERR_CACHE_FILE_UNWRITABLE FileStore: cannot write .*c\.json \(ENOSPC: no space left on device/)
    t.same(
      [...parse_cache_file(readFileSync(file, 'utf8')).keys()],
      ['small'],
      'the file keeps its last complete version',
    )
    t.same(readdirSync(dir), ['c.json'], 'the partial temporary file is removed')
    t.equal(store.get('big')?.body.length, 100 * 1024, 'the entry is served from memory')
    store.put('big2', big('y'))
    await store.flush().catch(() => {})
    t.equal((await seen()).length, 1, 'the warning is given once while the disk stays full')
    store.erase('big')
    store.erase('big2')
    await store.flush()
    t.same(
      [...parse_cache_file(readFileSync(file, 'utf8')).keys()],
      ['small'],
      'writes succeed again once space is back',
    )
  },
)

t.test(
  'http_cache over a FileStore on a full disk answers every request',
  { skip: as_root ? false : 'needs root' },
  async (t) => {
    const dir = small_disk(t)
    if (dir === undefined) return void t.pass('skipped: mount -t tmpfs was refused')
    const seen = warnings(t)
    const store = new FileStore({ file_path: join(dir, 'c.json') })
    let runs = 0
    const app = build(t, (app) => {
      app.use(fw.middleware.app.http_cache({ store }))
      app.get('/big', (_req, res) => void res.text('z'.repeat(100 * 1024) + String(++runs)))
    })
    const a = await app.inject({ url: '/big' })
    const b = await app.inject({ url: '/big' })
    t.same(
      [a.statusCode, a.headers['x-fw-cache-status'], b.statusCode, b.headers['x-fw-cache-status']],
      [200, 'miss', 200, 'hit'],
    )
    t.equal(b.body, a.body)
    await store.flush().catch(() => {})
    t.match((await seen())[0], /^FW_ERR_CACHE_FILE_UNWRITABLE .*ENOSPC/)
  },
)

t.test(
  'FileStore in a folder it may not write (EACCES)',
  { skip: as_root ? false : 'running a child as nobody needs root' },
  async (t) => {
    const script = bundle(t, 'test/reliability/fixtures/file-store-writer.ts')
    chmodSync(join(script, '..'), 0o755)
    const dir = mkdtempSync(join(tmpdir(), 'fw-eacces-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    chmodSync(dir, 0o755)
    mkdirSync(join(dir, 'cache'), { mode: 0o755 })
    const run = run_as_nobody(script, [join(dir, 'cache', 'c.json'), '2'], dir)
    t.equal(run.status, 0, `the process carries on and exits normally (stderr: ${run.stderr})`)
    // The warning comes with the first failed write, before its put is acknowledged.
    const [warning, n1, n2, ...rest] = run.stdout.trim().split('\n')
    t.same(
      [n1, n2, rest],
      ['n=1 stored=true', 'n=2 stored=true', []],
      'the entries are kept in memory; one warning only',
    )
    t.match(warning, /^warn FW_ERR_CACHE_FILE_UNWRITABLE FileStore: cannot write .*c\.json \(EACCES: permission denied/)
    t.same(readdirSync(join(dir, 'cache')), [], 'nothing is left in the folder')
  },
)
