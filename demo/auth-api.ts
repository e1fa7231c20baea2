// Demo `auth-api`: the spec's reference authentication API (register, login, current user, admin-only route), its users
// (and in production mode its tokens) in a database when one is configured.
import { auth_api, auth_api_config, auth_storage_url, open_auth_storage } from './auth-api/index.js'
import type { Demo } from './demo.js'

export const demo: Demo = {
  name: 'auth-api',
  description:
    'register, login, /auth/me, admin-only /auth/admin; FW_AUTH_MODE=demo|production, FW_AUTH_ADMINS=<emails>; ' +
    'DATABASE_URL or --database sqlite:<path> | postgres://... (production default ./.fw/auth-api.sqlite)',
  async setup(app, r) {
    const { mode, ttl } = auth_api_config()
    // Production keeps users and tokens in a database (the default SQLite file unless one is given); demonstration mode
    // keeps them in memory unless a database is given, and then only its users there.
    const url = auth_storage_url(mode === 'production')
    if (url === undefined) {
      auth_api(r)
    } else {
      const storage = await open_auth_storage(url)
      app.on_close(() => storage.close())
      console.log(`auth-api: storage ${storage.db.dialect} ${storage.db.where}`)
      auth_api(r, { users: storage.users, ...(mode === 'production' ? { tokens: storage.tokens(ttl) } : {}) })
    }
    if (mode === 'demo') {
      console.warn(
        'warning: auth-api runs in demonstration mode (plain-text passwords, dev-token-<id> tokens). ' +
          'Set FW_AUTH_MODE=production outside a demonstration.',
      )
    }
  },
}
