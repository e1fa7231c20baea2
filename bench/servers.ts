// Starting benchmark servers in their own processes and loading them with autocannon from this one (127.0.0.1 only).
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import autocannon from 'autocannon'
import { compiled } from './compiled.js'

/** A server process serving on 127.0.0.1. */
export interface Server {
  readonly name: string
  readonly port: number
  stop(): Promise<void>
}

/** Starts `bench/servers/<script>`, compiled; it prints `listening <port>` when ready. */
export async function start_server(name: string, script: string, env: Record<string, string> = {}): Promise<Server> {
  const child: ChildProcess = spawn(process.execPath, [compiled('servers/' + script)], {
    env: { ...process.env, FW_LOG_LEVEL: 'warn', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const port = await new Promise<number>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /listening (\d+)/.exec(out)
      if (m) resolve(Number(m[1]))
    })
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before listening`)))
  })
  return {
    name,
    port,
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

/** Requests per second of one bounded autocannon run against 127.0.0.1; non-2xx answers make it throw. */
export async function load(port: number, l: Load): Promise<number> {
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
  return r.requests.average
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

/**
 * Writes `listening <port>` for start_server; SIGTERM then exits through process.exit, so `--cpu-prof` writes its
 * profile.
 */
export function announce(port: number): void {
  process.once('SIGTERM', () => process.exit(0))
  process.stdout.write(`listening ${port}\n`)
}
