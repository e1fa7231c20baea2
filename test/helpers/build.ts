// Test helpers: an App that is closed when the test ends, and a listening one for tests that need a real socket.
import { App, type Router } from '../../index.js'
import type { AppOptions } from '../../lib/config.js'

/** The part of a tap test the helpers use. */
export interface Teardown {
  teardown(fn: () => unknown): void
}

/**
 * Makes an App, lets `setup` register routes and middleware, and closes it when the test ends.
 * @example
 * const app = build(t, (app) => app.get('/x', (_req, res) => void res.json('ok', true)))
 * const r = await app.inject({ url: '/x' })
 */
export function build(t: Teardown, setup: (app: App) => void = () => {}, options: AppOptions = {}): App {
  const app = new App({ access_log: false, ...options })
  setup(app)
  t.teardown(() => app.close())
  return app
}

/** Like `build`, then listens on a free port of 127.0.0.1 and resolves with the app and its port. */
export async function listening(
  t: Teardown,
  setup: (app: App) => void = () => {},
  options: AppOptions = {},
): Promise<{ app: App; port: number }> {
  const app = build(t, setup, { host: '127.0.0.1', ...options })
  const port = await app.listen(0)
  return { app, port }
}

/** A promise and the function that resolves it, for holding a handler until the test lets it go. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void
  const promise = new Promise<void>((resolve) => (open = resolve))
  return { promise, open }
}

/**
 * A demo's routes on an App, at the root or inside a group under `prefix` (as the showcase mounts them), next to an
 * unprotected `GET /open`; closed when the test ends.
 * @example
 * const app = mounted(t, (r) => setup_jwt(r, { secret }), '/jwt')
 */
export function mounted(t: Teardown, setup: (r: Router) => void, prefix = ''): App {
  return build(t, (app) => {
    if (prefix === '') setup(app)
    else app.group(prefix, setup)
    app.get('/open', (_req, res) => void res.json('ok', true))
  })
}
