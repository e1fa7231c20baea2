// Every ```ts block of README.md and docs/*.md: all type-checked in one program against the sources, and every block
// not marked ```ts fragment run in a child that must exit 0 (or, if it listens, stop on SIGTERM), so a documented
// example cannot rot unseen. Fragments may use `app`, `req` and `res` and names they do not define.
import { spawn } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildSync } from 'esbuild'
import { generate } from 'selfsigned'
import t from 'tap'
import ts from 'typescript'
import type { Teardown } from '../helpers/build.js'
import { plain_env } from '../helpers/child-bundle.js'
import { doc_blocks, write_blocks, type DocBlock } from '../helpers/doc-blocks.js'
import { start_redis } from '../helpers/redis-server.js'
import { LISTENING } from './free-port.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** How long a block may take to exit, or to listen. */
const RUN_TIMEOUT_MS = 10_000

const blocks = doc_blocks(ROOT)
const dir = write_blocks(ROOT, blocks)
t.teardown(() => rmSync(dir, { recursive: true, force: true }))

/** Errors a fragment may have: a name it uses but does not define, a package other than fw it imports. */
function allowed_in_fragment(d: ts.Diagnostic): boolean {
  if (d.code === 2304 || d.code === 2552) return true
  const message = ts.flattenDiagnosticMessageText(d.messageText, '\n')
  return d.code === 2307 && !/'(fw|\.)/.test(message)
}

/** Type-checks every block in one program; resolves with the blocks' errors, one `page:line:col message` a line. */
function type_errors(): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(dir, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'))
      },
    },
  )!
  const program = ts.createProgram(config.fileNames, config.options)
  const by_file = new Map(blocks.map((b) => [join(dir, 'src', b.file), b]))
  // The blocks' own errors only: checking the whole of fw's sources too would take most of the time.
  const diagnostics = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()]
  for (const file of by_file.keys()) {
    const source = program.getSourceFile(file)!
    diagnostics.push(...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source))
  }
  const errors: string[] = []
  for (const d of diagnostics) {
    const block = d.file ? by_file.get(d.file.fileName) : undefined
    if (block?.fragment && allowed_in_fragment(d)) continue
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n')
    if (!block || !d.file || d.start === undefined) {
      errors.push(`${d.file?.fileName ?? '(program)'}: ${message}`)
      continue
    }
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start)
    const [page, first] = block.where.split(':') as [string, string]
    errors.push(`${page}:${Number(first) + line}:${character + 1} TS${d.code} ${message}`)
  }
  return errors
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

/** What a run ended with: `ok`, or why not with the block's output. */
async function run(file: string, setting: Record<string, string>): Promise<string> {
  const env = { ...plain_env(), FW_PORT: '0', FW_HOST: '127.0.0.1', FW_ACCESS_LOG: 'false', ...setting }
  const child = spawn(process.execPath, [file], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    out += d
    if (d.includes(LISTENING) && !listened) {
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

t.test('every block type-checks against the sources', async (t) => {
  t.same(type_errors(), [])
})

t.test('every block not marked fragment runs', async (t) => {
  const runnable = blocks.filter((b) => !b.fragment)
  const files = bundle_runnable(runnable)
  const setting = await deployment(t)
  const results = await two_at_a_time(runnable.map((b) => () => run(files.get(b)!, setting)))
  const failed = runnable.flatMap((b, i) => (results[i] === 'ok' ? [] : [`${b.where} ${results[i]}`]))
  t.same(failed, [], `${runnable.length} blocks run`)
})
