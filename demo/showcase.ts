// `npm start`: every demo on one App, each under its own prefix so their routes never collide.
import { App } from '../index.js'
import { compression, etag } from '../lib/middleware/app/index.js'
import { demo_openapi, listen_failure } from './demo.js'
import { demos } from './registry.js'

/** Where each demo lives in the showcase ('' = at the root). Demos not listed mount under `/<name>`. */
export const SHOWCASE_PREFIXES: Record<string, string> = {
  'showcase-page': '',
  'http-api': '',
  'auth-api': '',
  session: '',
  'api-key': '/key',
  jwt: '/jwt',
  rbac: '/rbac',
  security: '/security',
  cache: '/cache',
  log: '/log',
  files: '/files',
  sse: '/sse',
  chat: '',
}

/** Builds the showcase App. */
export async function build_showcase(app = new App()): Promise<App> {
  // Operations: Prometheus at /metrics, readiness at /ready (the spec's /health is the http-api demo's, and stays
  // {ok:true}; /live is the probe's liveness), compressed answers and ETags on every buffered answer.
  app.metrics({ path: '/metrics' })
  app.health({ path: '/live', ready_path: '/ready' })
  app.use(compression())
  app.use(etag())
  for (const demo of Object.values(demos)) {
    if (demo.standalone === true) continue
    const prefix = SHOWCASE_PREFIXES[demo.name] ?? `/${demo.name}`
    if (prefix === '') await demo.setup(app, app)
    else {
      const setups: Array<void | Promise<void>> = []
      app.group(prefix, (g) => void setups.push(demo.setup(app, g)))
      await Promise.all(setups)
    }
  }
  app.openapi(demo_openapi('fw showcase', 'Every demo of fw on one app'))
  return app
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const app = await build_showcase()
  for (const demo of Object.values(demos)) {
    if (demo.standalone === true) continue
    const prefix = SHOWCASE_PREFIXES[demo.name] ?? `/${demo.name}`
    console.log(`  ${demo.name.padEnd(14)} ${(prefix || '/').padEnd(10)} ${demo.description}`)
  }
  await app.run().catch((err: unknown) => listen_failure(app, err, 'pick another with FW_PORT=N npm start'))
}
