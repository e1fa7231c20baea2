// `npm run demo -- <name> [--port N]`: starts one demo on 127.0.0.1 and prints its address.
import { pathToFileURL } from 'node:url'
import { App } from '../index.js'
import { demo_openapi, listen_failure } from './demo.js'
import { demos } from './registry.js'

/** The port when `--port` is not given. */
const DEFAULT_PORT = 8080

/** The options with a value a demo reads from the command line itself, besides `--port`. */
const DEMO_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  conduit: ['--database'],
  'auth-api': ['--database'],
}

/** What the command line asks: a demo on a port, the usage, or an error to show with it. */
export type DemoArgs = { name: string; port: number } | { help: true } | { error: string }

/**
 * Reads `<name> [--port N]` in any order (`--port=N` too), plus the options the named demo reads itself
 * (`--database <url>` for `conduit` and `auth-api`); `-h` or `--help` asks for the usage.
 * @example
 * parse_demo_args(['http-api', '--port', '0'], ['http-api']) // { name: 'http-api', port: 0 }
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
  if (port === undefined) return { name, port: DEFAULT_PORT }
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535)
    return { error: `--port needs a port number from 0 to 65535${port === '' ? '' : `, got '${port}'`}` }
  return { name, port: Number(port) }
}

/** The usage and the demos, one a line. */
function usage(): string {
  const width = Math.max(...Object.keys(demos).map((n) => n.length))
  const lines = Object.values(demos).map((d) => `  ${d.name.padEnd(width)}  ${d.description}`)
  return `usage: npm run demo -- <name> [--port N]   (port 0: any free port; default ${DEFAULT_PORT})\n\n${lines.join('\n')}\n`
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
  const app = new App({ host: '127.0.0.1' })
  await demo.setup(app, app)
  app.openapi(demo_openapi(`fw demo ${demo.name}`))
  // The contract's line, on stdout whatever the log format: tools wait for it.
  await app
    .run(parsed.port, (url) => console.log(`listening on ${url}`))
    .catch((err: unknown) => listen_failure(app, err, 'pick another with --port N, or --port 0 for any free port'))
}
