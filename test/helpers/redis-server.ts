// A real redis-server for tests: on a free 127.0.0.1 port, in a temp dir, without persistence; stopped by its pid.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Teardown } from './build.js'
import { ensure } from './services.js'

/** A running (or stopped, then restartable) redis-server. */
export interface RedisServer {
  readonly port: number
  /** `redis://127.0.0.1:<port>` */
  readonly url: string
  /** The pid of the current server process (undefined while stopped). */
  readonly pid: number | undefined
  /** Kills the server (SIGKILL, as a crash) and waits until it has exited. */
  kill(): Promise<void>
  /** Starts a server again on the same port and waits until it answers PING. */
  restart(): Promise<void>
  /** Stops the server (SIGTERM) and removes its temp dir. */
  stop(): Promise<void>
}

/** A port of 127.0.0.1 that was free a moment ago (nothing listens on it unless someone takes it since). */
export async function free_port(): Promise<number> {
  const server = net.createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as net.AddressInfo
  server.close()
  await once(server, 'close')
  return port
}

/** Whether a Redis server answers PING on the port. */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write('PING\r\n'))
    const done = (ok: boolean): void => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(500, () => done(false))
    socket.on('data', (d: Buffer) => done(d.toString().startsWith('+PONG')))
    socket.on('error', () => done(false))
  })
}

/**
 * Starts redis-server on `port` in `dir`; resolves once it answers PING, rejects when it exits first or takes over 5 s.
 */
async function launch(port: number, dir: string): Promise<ChildProcess> {
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--loglevel',
    'warning',
    '--enable-debug-command',
    'local',
  ] // DEBUG SLEEP and DEBUG RELOAD for the fault tests
  const child = spawn('redis-server', args, { stdio: 'ignore' })
  let exited = false
  child.once('exit', () => (exited = true))
  for (const deadline = Date.now() + 5000; Date.now() < deadline && !exited;) {
    if (await pong(port)) return child
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  child.kill('SIGKILL')
  throw new Error(
    `redis-server on port ${port} ${exited ? `exited with ${child.exitCode}` : 'did not answer PING within 5 s'}`,
  )
}

async function end(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  process.kill(child.pid!, signal)
  await exited
}

/**
 * Starts a redis-server for the test and stops it when the test ends (also if this process exits first).
 * @example
 * const redis = await start_redis(t)
 * const store = new RedisSessionStore({ client: redis.url })
 */
export async function start_redis(t: Teardown): Promise<RedisServer> {
  ensure('redis-server')
  const dir = mkdtempSync(join(tmpdir(), 'fw-redis-'))
  const port = await free_port()
  let child: ChildProcess | undefined = await launch(port, dir)
  const on_exit = (): void => void child?.kill('SIGKILL')
  process.once('exit', on_exit)
  const server: RedisServer = {
    port,
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return child?.pid
    },
    async kill() {
      await end(child, 'SIGKILL')
      child = undefined
    },
    async restart() {
      await end(child, 'SIGKILL')
      child = await launch(port, dir)
    },
    async stop() {
      await end(child, 'SIGTERM')
      child = undefined
      process.off('exit', on_exit)
      rmSync(dir, { recursive: true, force: true })
    },
  }
  t.teardown(() => server.stop())
  return server
}
