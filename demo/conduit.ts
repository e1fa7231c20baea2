// Demo `conduit`: the RealWorld API under /api on durable storage (SQLite by default, PostgreSQL for several instances).
import type { Demo } from './demo.js'
import { conduit } from './conduit/index.js'
import { dev_secret } from './demo.js'
import { DEV_JWT_SECRET } from './conduit/index.js'

export const demo: Demo = {
  name: 'conduit',
  standalone: true,
  description: 'the RealWorld API under /api; DATABASE_URL or --database sqlite:<path> | postgres://...',
  async setup(app, r) {
    const c = await conduit(r, { jwt_secret: dev_secret('CONDUIT_JWT_SECRET', DEV_JWT_SECRET) })
    app.on_close(() => c.close())
    console.log(`conduit: storage ${c.db.dialect} ${c.db.where}`)
    app.openapi({ info: { title: 'Conduit', version: '1.0.0' }, path: '/api/openapi.json', docs: '/api/docs' })
  },
}
