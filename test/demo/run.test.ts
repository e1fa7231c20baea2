// `npm run demo -- <name> [--port N]` and `npm start` as a new user meets them: a mistyped command line or a port in use
// gets one clear line and a non-zero exit, never a stack trace or a server that ignored what it was told.
import { spawn } from 'node:child_process'
import { createServer, type Server } from 'node:net'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { parse_demo_args } from '../../demo/run.js'
import { plain_node } from '../helpers/plain-node.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

interface Ran {
  /** The exit code, or 'listened' when the demo started (then it was stopped). */
  code: number | 'listened' | null
  out: string
  err: string
}

/** Runs `fixture` with `args`; a child that listens is stopped at once, and says so. */
async function run(fixture: string, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const child = spawn(...plain_node(['--import', 'tsx', fixture, ...args]), {
    cwd: ROOT,
    env: { ...process.env, FW_ACCESS_LOG: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  let listened = false
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d
    if (!listened && out.includes('listening on http://')) {
      listened = true
      child.kill('SIGTERM')
    }
  })
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d))
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)))
  clearTimeout(timer)
  return { code: listened ? 'listened' : code, out, err }
}

/** A port of 127.0.0.1 held by another server until the test ends. */
async function held_port(t: Test): Promise<number> {
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => server.close(resolve)))
  return (server.address() as { port: number }).port
}

const NO_STACK = /^\s+at /m

t.test('npm run demo refuses a bad command line with a message and exit code 2', async (t) => {
  // One of each kind through the process; parse_demo_args below holds every case.
  const cases: Array<[string[], RegExp]> = [
    [['nope'], /unknown demo 'nope'/],
    [['http-api', '--port', 'abc'], /--port needs a port number from 0 to 65535, got 'abc'/],
    [['http-api', '--bogus'], /unknown option '--bogus'/],
  ]
  const runs = await Promise.all(cases.map(([args]) => run('demo/run.ts', args)))
  cases.forEach(([args, message], i) => {
    const { code, err } = runs[i]!
    t.equal(code, 2, `${args.join(' ')}: exit code`)
    t.match(err, message, `${args.join(' ')}: says what is wrong`)
    t.match(err, /usage: npm run demo -- <name> \[--port N\]/, `${args.join(' ')}: shows the usage`)
    t.notMatch(err, NO_STACK, `${args.join(' ')}: no stack trace`)
  })
})

t.test('npm run demo -- --help prints the usage and the demos on stdout, exit 0', async (t) => {
  const { code, out } = await run('demo/run.ts', ['--help'])
  t.equal(code, 0)
  t.match(out, /usage: npm run demo -- <name> \[--port N\]/)
  t.match(out, /http-api/)
})

t.test('npm run demo takes --port before the name, and --port=N', async (t) => {
  const [before, joined] = await Promise.all([
    run('demo/run.ts', ['--port', '0', 'http-api']),
    run('demo/run.ts', ['http-api', '--port=0']),
  ])
  t.equal(before.code, 'listened', before.err)
  t.equal(joined.code, 'listened', joined.err)
})

/** A port of 127.0.0.1 free a moment ago. */
async function free_port(): Promise<number> {
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

t.test('npm run demo listens on FW_PORT without --port; --port wins over it', async (t) => {
  const port = await free_port()
  const from_env = await run('demo/run.ts', ['http-api'], { FW_PORT: String(port) })
  t.equal(from_env.code, 'listened', from_env.err)
  t.match(from_env.out, `listening on http://127.0.0.1:${port}`, 'the port FW_PORT names')
  const held = await held_port(t)
  const flag = await run('demo/run.ts', ['http-api', '--port', '0'], { FW_PORT: String(held) })
  t.equal(flag.code, 'listened', flag.err)
  t.notMatch(flag.out, `:${held}`, '--port 0 (any free port), not the held FW_PORT')
  const in_use = await run('demo/run.ts', ['http-api'], { FW_PORT: String(held) })
  t.equal(in_use.code, 1)
  t.match(in_use.err, new RegExp(`port ${held} of 127\\.0\\.0\\.1 is already in use`))
  const bad = await run('demo/run.ts', ['http-api'], { FW_PORT: 'http' })
  t.equal(bad.code, 2)
  t.match(bad.err, /^error: FW_PORT must be an integer from 0 to 65535; got "http"\n/)
  t.notMatch(bad.err, NO_STACK)
})

t.test('a port in use is said in one line with what to do, exit 1', async (t) => {
  const port = await held_port(t)
  const [demo, showcase] = await Promise.all([
    run('demo/run.ts', ['http-api', '--port', String(port)]),
    run('demo/showcase.ts', [], { FW_PORT: String(port), FW_HOST: '127.0.0.1' }),
  ])
  t.equal(demo.code, 1)
  t.match(demo.err, new RegExp(`port ${port} of 127\\.0\\.0\\.1 is already in use.*--port`))
  t.notMatch(demo.err, NO_STACK)
  t.equal(showcase.code, 1)
  t.match(showcase.err, new RegExp(`port ${port} of 127\\.0\\.0\\.1 is already in use.*FW_PORT`))
  t.notMatch(showcase.err, NO_STACK)
})

t.test('parse_demo_args', async (t) => {
  const names = ['http-api', 'conduit', 'auth-api']
  t.test('reads the name and --port in any order', async (t) => {
    // Without --port the App's rule picks it: FW_PORT, else 8080.
    t.same(parse_demo_args(['http-api'], names), { name: 'http-api' })
    t.same(parse_demo_args(['http-api', '--port', '0'], names), { name: 'http-api', port: 0 })
    t.same(parse_demo_args(['--port', '8081', 'http-api'], names), { name: 'http-api', port: 8081 })
    t.same(parse_demo_args(['--port=65535', 'http-api'], names), { name: 'http-api', port: 65535 })
  })

  t.test('lets the demos that open storage take --database <url>', async (t) => {
    t.same(parse_demo_args(['conduit', '--database', 'sqlite:/tmp/c.sqlite', '--port', '3000'], names), {
      name: 'conduit',
      port: 3000,
    })
    t.same(parse_demo_args(['--database', 'sqlite:/tmp/a.sqlite', 'auth-api'], names), { name: 'auth-api' })
    t.same(parse_demo_args(['conduit', '--database'], names), { error: '--database needs a value' })
    t.same(parse_demo_args(['http-api', '--database', 'sqlite:x'], names), {
      error: "unknown option '--database' for demo 'http-api'",
    })
  })

  t.test('asks for the usage with -h or --help', async (t) => {
    t.same(parse_demo_args(['-h'], names), { help: true })
    t.same(parse_demo_args(['http-api', '--help'], names), { help: true })
  })

  t.test('says what is wrong', async (t) => {
    const cases: Array<[string[], string]> = [
      [[], 'a demo name is missing'],
      [['--port', '0'], 'a demo name is missing'],
      [['nope'], "unknown demo 'nope'"],
      [['http-api', '--port'], '--port needs a port number from 0 to 65535'],
      [['http-api', '--port', 'abc'], "--port needs a port number from 0 to 65535, got 'abc'"],
      [['http-api', '--port', '99999'], "--port needs a port number from 0 to 65535, got '99999'"],
      [['http-api', '--port', '-1'], "--port needs a port number from 0 to 65535, got '-1'"],
      [['http-api', '--port', '1.5'], "--port needs a port number from 0 to 65535, got '1.5'"],
      [['http-api', '--port', '1e3'], "--port needs a port number from 0 to 65535, got '1e3'"],
      [['http-api', '--port='], '--port needs a port number from 0 to 65535'],
      [['http-api', '--bogus'], "unknown option '--bogus'"],
      [['http-api', '-p', '80'], "unknown option '-p'"],
      [['http-api', 'extra'], "unexpected argument 'extra'"],
      [['http-api', 'conduit'], "unexpected argument 'conduit'"],
    ]
    for (const [args, error] of cases) t.same(parse_demo_args(args, names), { error }, args.join(' '))
  })
})
