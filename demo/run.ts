// `npm run demo -- <name> [--port N]`: starts one demo on 127.0.0.1 and prints its address.
import { App } from '../index.js'
import { demo_openapi } from './demo.js'
import { demos } from './registry.js'

const args = process.argv.slice(2)
const name = args.find((a) => !a.startsWith('--'))
const port_at = args.indexOf('--port')
const port = port_at === -1 ? 8080 : Number(args[port_at + 1])
const demo = name === undefined ? undefined : demos[name]
if (demo === undefined || !Number.isInteger(port)) {
  console.error(`usage: npm run demo -- <name> [--port N]\nnames: ${Object.keys(demos).join(', ')}`)
  process.exit(2)
}

const app = new App({ host: '127.0.0.1' })
await demo.setup(app, app)
app.openapi(demo_openapi(`fw demo ${demo.name}`))
// The contract's line, on stdout whatever the log format: tools wait for it.
await app.run(port, (url) => console.log(`listening on ${url}`))
