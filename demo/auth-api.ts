// Demo `auth-api`: the spec's reference authentication API (register, login, current user, admin-only route).
import { auth_api } from './auth-api/index.js'
import type { Demo } from './demo.js'

export const demo: Demo = {
  name: 'auth-api',
  description:
    'register, login, /auth/me, admin-only /auth/admin; FW_AUTH_MODE=demo|production, FW_AUTH_ADMINS=<emails>',
  setup(_app, r) {
    if (auth_api(r).mode === 'demo') {
      console.warn(
        'warning: auth-api runs in demonstration mode (plain-text passwords, dev-token-<id> tokens). ' +
          'Set FW_AUTH_MODE=production outside a demonstration.',
      )
    }
  },
}
