// Demo `session`: the spec's session counter; each request with the same cookie counts one more.
import type { Router } from '../index.js'
import { session_dev } from '../lib/middleware/app/index.js'
import { Session } from '../lib/middleware/auth/index.js'
import { dev_secret, type Demo } from './demo.js'

/**
 * Registers `GET /session`, answering `n=<counter>` (secret default `FW_SESSION_SECRET`, else a development secret).
 * @example
 * setup_session(app, { secret: 'a-long-random-secret-of-32-or-more-characters' })
 */
export function setup_session(r: Router, { secret }: { secret?: string } = {}): void {
  r.use(
    '/session',
    session_dev(secret ?? dev_secret('FW_SESSION_SECRET', 'dev-session-secret-change-me-before-deploying')),
  )
  r.get('/session', (req, res) => {
    const s = req.state(Session)!
    const n = Number(s.get('n') ?? '0') + 1
    s.set('n', String(n))
    res.text(`n=${n}`)
  })
}

export const demo: Demo = {
  name: 'session',
  description: 'GET /session counts n=1, 2, 3... per session cookie',
  setup(_app, r) {
    setup_session(r)
  },
}
