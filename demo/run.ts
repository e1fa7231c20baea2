// `npm run demo -- <name> [--port N]`: starts one demo on 127.0.0.1 and prints its address.
import { pathToFileURL } from 'node:url'
import { App, FwError } from '../index.js'
import { demo_openapi, listen_failure } from './demo.js'
import { demos } from './registry.js'

/** The options with a value a demo reads from the command line itself, besides `--port`. */
const DEMO_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  conduit: ['--database'],
  'auth-api': ['--database'],
}

/**
 * What the command line asks: a demo (on `port` when `--port` was given, else where the App's rule says: `FW_PORT`,
 * else 8080), the usage, or an error to show with it.
 */
export type DemoArgs = { name: string; port?: number } | { help: true } | { error: string }

/**
 * Reads `<name> [--port N]` in any order (`--port=N` too), plus the options the named demo reads itself
 * (`--database <url>` for `conduit` and `auth-api`); `-h` or `--help` asks for the usage. Without `--port` the result
 * has no port: the App's `FW_PORT`, else 8080, applies, so the flag wins over the environment.
 * @example
 * parse_demo_args(['http-api', '--port', '0'], ['http-api']) // { name: 'http-api', port: 0 }
 * parse_demo_args(['http-api'], ['http-api']) // { name: 'http-api' }
 */
export function parse_demo_args(args: readonly string[], names: readonly string[]): DemoArgs {
  if (args.includes('--help') || args.includes('-h')) return { help: true }
  const known = new Set(Object.values(DEMO_OPTIONS).flat())
  let name: string | undefined
  let port: string | undefined
  const options: Array<[string, string | undefined]> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--port') port = args[++i] ?? ''
    else if (arg.startsWith('--port=')) port = arg.slice('--port='.length)
    else if (known.has(arg)) {
      const value = args[i + 1]
      options.push([arg, value === undefined || value.startsWith('-') ? undefined : args[++i]])
    } else if (arg.startsWith('-')) return { error: `unknown option '${arg}'` }
    else if (name === undefined) name = arg
    else return { error: `unexpected argument '${arg}'` }
  }
  if (name === undefined) return { error: 'a demo name is missing' }
  if (!names.includes(name)) return { error: `unknown demo '${name}'` }
  for (const [option, value] of options) {
    if (!DEMO_OPTIONS[name]?.includes(option)) return { error: `unknown option '${option}' for demo '${name}'` }
    if (value === undefined) return { error: `${option} needs a value` }
  }
  if (port === undefined) return { name }
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535)
    return { error: `--port needs a port number from 0 to 65535${port === '' ? '' : `, got '${port}'`}` }
  return { name, port: Number(port) }
}

/** The usage and the demos, one a line. */
function usage(): string {
  const width = Math.max(...Object.keys(demos).map((n) => n.length))
  const lines = Object.values(demos).map((d) => `  ${d.name.padEnd(width)}  ${d.description}`)
  return `usage: npm run demo -- <name> [--port N]   (port 0: any free port; default FW_PORT, else 8080)\n\n${lines.join('\n')}\n`
}

/** The demo's App on 127.0.0.1; a bad `FW_*` variable (`FW_PORT=http`) is said in one line, exit code 2. */
function new_app(): App {
  try {
    return new App({ host: '127.0.0.1' })
  } catch (err) {
    if (!(err instanceof FwError) || err.code !== 'FW_ERR_CONFIG_BAD_VALUE') throw err
    process.stderr.write(`error: ${err.message}\n`)
    process.exit(2)
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const parsed = parse_demo_args(process.argv.slice(2), Object.keys(demos))
  if ('help' in parsed) {
    process.stdout.write(usage())
    process.exit(0)
  }
  if ('error' in parsed) {
    process.stderr.write(`error: ${parsed.error}\n${usage()}`)
    process.exit(2)
  }
  const demo = demos[parsed.name]!
  const app = new_app()
  await demo.setup(app, app)
  app.openapi(demo_openapi(`fw demo ${demo.name}`))
  // The contract's line, on stdout whatever the log format: tools wait for it.
  await app
    .run(parsed.port, (url) => console.log(`listening on ${url}`))
    .catch((err: unknown) => listen_failure(app, err, 'pick another with --port N, or --port 0 for any free port'))
}
