// What every demo provides: a name, a line of description, and a setup that registers its routes on a router of an App.
import type { App, Router } from '../index.js'
import type { OpenApiOptions } from '../lib/openapi/index.js'

/** One demo. `setup` registers routes on `r` (the App itself standalone, a group in the showcase). */
export interface Demo {
  readonly name: string
  readonly description: string
  /** Runs only on its own App (`npm run demo -- <name>`), not in the showcase: it opens storage of its own. */
  readonly standalone?: boolean
  setup(app: App, r: Router): void | Promise<void>
}

/** A development secret from the environment, with a loud default when unset. */
export function dev_secret(name: string, fallback: string): string {
  const v = process.env[name]
  if (v) return v
  console.warn(`warning: ${name} is not set; using the development default. Never do this in production.`)
  return fallback
}

/**
 * Ends a demo whose `app.run()` failed: a port in use or not allowed is said in one line with `hint` (how to pick
 * another), exit code 1; the app closes first, so its `on_close` hooks run (the files demo removes its folder). Any other
 * error is thrown again.
 * @example
 * await app.run(8080).catch((err) => listen_failure(app, err, 'pick another with --port N'))
 */
export async function listen_failure(app: App, err: unknown, hint: string): Promise<never> {
  const { code, address, port } = (err ?? {}) as { code?: unknown; address?: unknown; port?: unknown }
  const where = `port ${String(port)} of ${String(address)}`
  const why =
    code === 'EADDRINUSE'
      ? `${where} is already in use`
      : code === 'EACCES'
        ? `${where} is not allowed to this user (ports below 1024 need privileges)`
        : undefined
  if (why === undefined) throw err
  process.stderr.write(`error: ${why}: ${hint}\n`)
  await app.close()
  process.exit(1)
}

/**
 * The OpenAPI options of a demo's app: its title, the license, and `security: []` for the routes that declare no
 * security of their own (every route that checks credentials says so, through its middleware or its `security` key).
 */
export function demo_openapi(title: string, description?: string): OpenApiOptions {
  return {
    info: {
      title,
      version: '0.1.0',
      ...(description === undefined ? {} : { description }),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    security: [],
  }
}
