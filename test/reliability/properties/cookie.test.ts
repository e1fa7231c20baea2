// Properties of cookies: a Cookie header written by the `cookie` package reads back through `req.cookie()`, and the
// session cookie fw writes, sent back among any other cookies in any order, finds its session again.
import fc from 'fast-check'
import t from 'tap'
import { parseSetCookie, stringifyCookie } from 'cookie'
import * as fw from '../../../index.js'
import { build } from '../../helpers/build.js'

const { session, Session } = fw.middleware.auth

/** Cookie names: RFC 9110 tokens. */
const token = fc.stringMatching(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,12}$/)

t.test('req.cookie', async (t) => {
  const app = build(t, (app) =>
    app.get('/c', (req, res) => void res.json('value', req.cookie(String(req.query_value('name', ''))) ?? null)),
  )
  await fc.assert(
    fc.asyncProperty(
      fc.dictionary(token, fc.string({ maxLength: 20 }), { minKeys: 1, maxKeys: 5 }),
      async (cookies) => {
        const header = stringifyCookie(cookies)
        for (const [name, value] of Object.entries(cookies)) {
          const r = await app.inject({ url: `/c?name=${encodeURIComponent(name)}`, headers: { cookie: header } })
          if ((r.json() as { value: string }).value !== value) return false
        }
        return true
      },
    ),
    { numRuns: 150 },
  )
  t.pass('every value written with stringifyCookie reads back unchanged')
})

t.test('the session cookie', async (t) => {
  const settings = fc.record({
    cookie_name: token.filter((n) => !n.startsWith('__')),
    http_only: fc.boolean(),
    same_site: fc.constantFrom('Strict' as const, 'Lax' as const),
  })
  const others = fc.dictionary(token, fc.string({ maxLength: 10 }), { maxKeys: 3 })
  await fc.assert(
    fc.asyncProperty(settings, fc.string({ maxLength: 40 }), others, fc.boolean(), async (s, value, extra, before) => {
      const app = build(t, (app) => {
        app.use(fw.adapt_ctx(session({ secret: 'a-session-secret-of-32-characters', ...s })))
        app.post('/set', (req, res) => {
          req.state(Session)!.set('v', value)
          res.json('ok', true)
        })
        app.get('/get', (req, res) => void res.json('v', req.state(Session)!.get('v') ?? null))
      })
      const set = await app.inject({ method: 'POST', url: '/set' })
      const written = parseSetCookie(String(set.headers['set-cookie']))
      delete extra[s.cookie_name]
      const sent = before ? { ...extra, [written.name]: written.value } : { [written.name]: written.value, ...extra }
      const got = await app.inject({ url: '/get', headers: { cookie: stringifyCookie(sent) } })
      await app.close()
      return written.name === s.cookie_name && (got.json() as { v: string }).v === value
    }),
    { numRuns: 60 },
  )
  t.pass('the Set-Cookie fw writes, sent back with other cookies, restores the session for any name and value')
})
