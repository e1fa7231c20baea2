// Every ```ts block of README.md and docs/*.md: all type-checked in one program against the sources, and every block
// not marked ```ts fragment run in a child that must exit 0 (or, if it listens, stop on SIGTERM), so a documented
// example cannot rot unseen. Fragments may use `app`, `req` and `res` and names they do not define.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildSync } from 'esbuild'
import { generate } from 'selfsigned'
import t from 'tap'
import type { Teardown } from '../helpers/build.js'
import { plain_node } from '../helpers/plain-node.js'
import { doc_blocks, write_blocks, type DocBlock } from '../helpers/doc-blocks.js'
import { start_redis } from '../helpers/redis-server.js'
import { LISTENING } from './free-port.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** How long a block may take to exit, or to listen and then stop: well above its second of CPU, for a loaded machine. */
const RUN_TIMEOUT_MS = 30_000
// About a minute of CPU in all (a second per block run, 15 s of type check), on two cores; more on a shared machine.
t.setTimeout(240_000)

const blocks = doc_blocks(ROOT)
const dir = write_blocks(ROOT, blocks)
t.teardown(() => rmSync(dir, { recursive: true, force: true }))
// The type check runs in a child while the blocks run: most of its time is loading fw's and Node's types.
const typing = type_check()
typing.catch(() => {}) // awaited by its test

/** Starts the type check of every block; resolves with their errors. */
async function type_check(): Promise<string[]> {
  const script = fileURLToPath(new URL('../helpers/doc-types.ts', import.meta.url))
  const child = spawn(...plain_node(['--import', 'tsx', script, dir]), { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
  const [code] = (await once(child, 'exit')) as [number | null]
  if (code !== 0) throw new Error(`the type check exited with ${code}`)
  return JSON.parse(out) as string[]
}

/** Bundles the runnable blocks (fw from the sources, packages left to node_modules); resolves with each one's file. */
function bundle_runnable(runnable: readonly DocBlock[]): Map<DocBlock, string> {
  buildSync({
    entryPoints: runnable.map((b) => join(dir, 'src', b.file)),
    outdir: join(dir, 'out'),
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    packages: 'external',
    tsconfig: join(dir, 'tsconfig.json'),
    inject: [fileURLToPath(new URL('./free-port.ts', import.meta.url))],
    logLevel: 'error',
  })
  return new Map(runnable.map((b) => [b, join(dir, 'out', b.file.replace(/\.ts$/, '.mjs'))]))
}

/** The blocks running now, killed if the test ends first. */
const running = new Set<ChildProcess>()
t.teardown(() => running.forEach((child) => child.kill('SIGKILL')))

/** What a run ended with: `ok`, or why not with the block's output. */
async function run(file: string, setting: Record<string, string>): Promise<string> {
  const env = { ...process.env, FW_PORT: '0', FW_HOST: '127.0.0.1', FW_ACCESS_LOG: 'false', ...setting }
  const child = spawn(...plain_node([file]), { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
  running.add(child)
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    out += d
    if (out.includes(LISTENING) && !listened) {
      listened = true
      child.kill('SIGTERM')
    }
  })
  let listened = false
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS)
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('exit', (c, s) => resolve([c, s])),
  )
  clearTimeout(timer)
  running.delete(child)
  await new Promise((resolve) => setImmediate(resolve))
  if (code === 0 || (listened && signal === 'SIGTERM')) return 'ok'
  const why = signal === 'SIGKILL' ? `did not exit within ${RUN_TIMEOUT_MS} ms` : `exited with ${code ?? signal}`
  return `${why}${listened ? ' after it listened' : ''}:\n${out.replaceAll(`${LISTENING}\n`, '')}`
}

/**
 * What the pages expect of the place an example runs in: the variables they read (secrets, keys, REDIS_URL of a real
 * Redis) and, in the working folder, the TLS key and certificate of `tls/key.pem` and `tls/cert.pem`.
 */
async function deployment(t: Teardown): Promise<Record<string, string>> {
  const redis = await start_redis(t)
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keySize: 2048 })
  mkdirSync(join(dir, 'tls'))
  writeFileSync(join(dir, 'tls', 'key.pem'), pems.private)
  writeFileSync(join(dir, 'tls', 'cert.pem'), pems.cert)
  const secret = 'docs-example-secret-0123456789abcdef'
  return {
    REDIS_URL: redis.url,
    FW_JWT_SECRET: secret,
    FW_SESSION_SECRET: secret,
    FW_CSRF_SECRET: secret,
    FW_API_KEY: 'docs-example-key',
    FW_API_KEYS: 'docs-example-key,docs-example-key-2',
    FW_PARTNER_KEY: 'docs-example-partner-key',
    API_KEY: 'docs-example-key',
    ADMIN_KEY: 'docs-example-key',
  }
}

/** Runs `jobs` two at a time (the CI machine has two cores). */
async function two_at_a_time<T>(jobs: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(jobs.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const i = next++
      results[i] = await jobs[i]!()
    }
  }
  await Promise.all([worker(), worker()])
  return results
}

t.test('every block not marked fragment runs', async (t) => {
  const runnable = blocks.filter((b) => !b.fragment)
  const files = bundle_runnable(runnable)
  const setting = await deployment(t)
  const results = await two_at_a_time(runnable.map((b) => () => run(files.get(b)!, setting)))
  const failed = runnable.flatMap((b, i) => (results[i] === 'ok' ? [] : [`${b.where} ${results[i]}`]))
  t.same(failed, [], `${runnable.length} blocks run`)
})

t.test('every block type-checks against the sources', async (t) => {
  t.same(await typing, [])
})
