// Starting benchmark servers in their own processes (unpinned, V8's GC trace on their stdout) and loading them with
// autocannon from this one (127.0.0.1 only), for the modules that measure req/s.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import autocannon from 'autocannon'
import { GC_TRACE_FLAGS, server_output, type Allocated } from './allocations.js'
import { compiled } from './compiled.js'

/** A server process serving on 127.0.0.1. */
export interface Server {
  readonly name: string
  readonly port: number
  /** What V8 reported allocated so far (bench/allocations.ts). */
  allocated(): Promise<Allocated>
  stop(): Promise<void>
}

/** Starts `bench/servers/<script>`, compiled; it prints `listening <port>` when ready. */
export async function start_server(name: string, script: string, env: Record<string, string> = {}): Promise<Server> {
  const child: ChildProcess = spawn(process.execPath, [...GC_TRACE_FLAGS, await compiled('servers/' + script)], {
    env: { ...process.env, FW_LOG_LEVEL: 'warn', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const output = server_output(
    name,
    child.stdout!,
    once(child, 'exit').then(([code]) => code as number | null),
  )
  const port = await output.port
  return {
    name,
    port,
    allocated: () => output.allocated(),
    async stop() {
      if (child.exitCode !== null) return
      child.kill('SIGTERM')
      await once(child, 'exit')
    },
  }
}

/** One load run's options. */
export interface Load {
  path: string
  method?: 'GET' | 'POST'
  body?: string
  headers?: Record<string, string>
  connections?: number
  pipelining?: number
  duration_s: number
}

/**
 * Requests per second and requests answered of one bounded autocannon run against 127.0.0.1; non-2xx answers make it
 * throw.
 */
export async function load(port: number, l: Load): Promise<{ rps: number; answered: number }> {
  const opts: autocannon.Options = {
    url: `http://127.0.0.1:${port}${l.path}`,
    method: l.method ?? 'GET',
    connections: l.connections ?? 100,
    pipelining: l.pipelining ?? 10,
    duration: l.duration_s,
    headers: { ...(l.body ? { 'content-type': 'application/json' } : {}), ...l.headers },
  }
  if (l.body !== undefined) opts.body = l.body
  const r = await autocannon(opts)
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${l.path} on ${port}: ${r.non2xx} non-2xx, ${r.errors} errors`)
  return { rps: r.requests.average, answered: r.requests.total }
}

/** Seconds of untimed load each server gets on each of its routes before the measured rounds. */
export const WARM_UP_S = 3

/**
 * Untimed load on every route of every server before the measured rounds, so they compare steady states, not JIT
 * warm-up: a server with more JavaScript on its hot path (fw over raw Fastify) needs longer to be fully optimised, and
 * 2 s rounds on a cold process measured that instead of the framework.
 */
export async function warm_up(
  servers: readonly Server[],
  loads: ReadonlyArray<Omit<Load, 'duration_s'>>,
  duration_s = WARM_UP_S,
): Promise<void> {
  for (const l of loads) for (const s of servers) await load(s.port, { ...l, duration_s })
}
