// Test helper: an fw server in a child process (a fixture run with tsx), optionally under a wrapper such as prlimit or
// taskset, ready once it printed its `listening on` line; killed when the test ends.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import type { Teardown } from './build.js'
import { plain_node } from './plain-node.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** A running child server. */
export interface ChildServer {
  readonly child: ChildProcess
  readonly port: number
  /** Everything it printed on stdout so far. */
  output(): string
  /** Resolves with the exit code and signal once it exited. */
  readonly exited: Promise<[number | null, NodeJS.Signals | null]>
}

/** Options of `start_child_server`. */
export interface ChildServerOptions {
  /** FW_* and other variables on top of this process's environment (FW_PORT defaults to 0). */
  env?: Record<string, string>
  /** A command and arguments the node command is appended to, such as `['prlimit', '--nofile=128']`. */
  wrapper?: string[]
  /** Arguments after the fixture (`['conduit', '--port', '0']` for `demo/run.ts`). */
  args?: string[]
}

/** Starts `fixture` (a path from the repository root) under node + tsx and resolves once it listens. */
export async function start_child_server(
  t: Teardown,
  fixture: string,
  options: ChildServerOptions = {},
): Promise<ChildServer> {
  const node = plain_node(['--import', 'tsx', fixture, ...(options.args ?? [])])
  const command = [...(options.wrapper ?? []), node[0], ...node[1]]
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    env: { ...process.env, FW_PORT: '0', FW_HOST: '127.0.0.1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  t.teardown(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')))
  let out = ''
  let err = ''
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d))
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d))
  const port = await new Promise<number>((resolve, reject) => {
    const check = (): void => {
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out)
      if (m) resolve(Number(m[1]))
    }
    child.stdout!.on('data', check)
    void exited.then(([code]) => reject(new Error(`${fixture} exited (${code}) before listening:\n${out}\n${err}`)))
  })
  return { child, port, output: () => out, exited }
}
