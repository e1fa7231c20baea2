// The conduit demo (the application under test) on fw, over the SQLite file FW_BENCH_DATABASE names (seeded by
// bench/conduit.ts before the measured runs), tokens signed with FW_BENCH_JWT_SECRET.
import { App } from '../../index.js'
import { conduit } from '../../demo/conduit/index.js'

const app = new App({ host: '127.0.0.1' })
const c = await conduit(app, { database: process.env.FW_BENCH_DATABASE!, jwt_secret: process.env.FW_BENCH_JWT_SECRET! })
app.on_close(() => c.close())
process.stdout.write(`listening ${await app.listen(0)}\n`)
