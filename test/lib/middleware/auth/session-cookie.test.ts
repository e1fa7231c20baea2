// The session cookie's reading: how many HMAC verifications a `Cookie` header can make it run.
import * as crypto from 'node:crypto'
import t from 'tap'
import { cookie_values } from '../../../../lib/cookie.js'
import type { Request } from '../../../../lib/request.js'
import type * as SessionCookieModule from '../../../../lib/middleware/auth/session-cookie.js'

const SECRET = 'session-test-secret-0123456789abcdef'
const mac = (id: string, secret = SECRET) => crypto.createHmac('sha256', secret).update(id).digest('base64url')

/** SessionCookie loaded with a `node:crypto` whose createHmac counts its calls. */
async function counting() {
  const calls = { n: 0 }
  const { SessionCookie } = await t.mockImport<typeof SessionCookieModule>(
    '../../../../lib/middleware/auth/session-cookie.js',
    {
      'node:crypto': {
        ...crypto,
        createHmac: (...args: Parameters<typeof crypto.createHmac>) => (calls.n++, crypto.createHmac(...args)),
      },
    },
  )
  const settings = { name: 'sid', path: '/', secure: false, http_only: true, same_site: 'Lax' as const, max_age: 60 }
  return { calls, cookie: (secrets: string[]) => new SessionCookie(secrets, settings) }
}

/** The part of a Request the cookie reads: the first value of a name, and the raw header. */
const req = (header: string) =>
  ({
    cookie: (name: string) => cookie_values(header, name)[0],
    raw: { headers: { cookie: header } },
  }) as unknown as Request

const id = (c: string) => c.repeat(22)
const forged = (i: string) => `${i}.${mac(i, 'x'.repeat(32))}`

t.test('session cookie verification cost', async (t) => {
  t.test('verifies each distinct value of the name once', async (t) => {
    const { calls, cookie } = await counting()
    const c = cookie([SECRET])
    // ~230 values, as many as a 16 KiB header holds, alternating between two forged ones.
    const header = Array.from({ length: 230 }, (_, i) => `sid=${forged(id(i % 2 === 0 ? 'A' : 'B'))}`).join('; ')
    t.equal(c.read(req(header)), undefined)
    t.equal(calls.n, 2, `one HMAC per distinct value (ran ${calls.n})`)
  })

  t.test('tries at most 8 distinct values, the first included', async (t) => {
    const { calls, cookie } = await counting()
    const c = cookie([SECRET])
    const many = Array.from({ length: 200 }, (_, i) => `sid=${forged(id(String.fromCharCode(65 + (i % 26)) + i))}`)
    t.equal(c.read(req(many.join('; '))), undefined)
    t.equal(calls.n, 8, `8 HMACs (ran ${calls.n})`)
  })

  t.test('still finds the own cookie behind tossed and repeated values, within the first 8 distinct', async (t) => {
    const { calls, cookie } = await counting()
    const c = cookie([SECRET])
    const own = id('Z')
    const valid = `sid=${own}.${mac(own)}`
    const repeated = Array.from({ length: 200 }, () => `sid=${forged(id('A'))}`)
    t.same(c.read(req([...repeated, valid].join('; '))), { id: own, retired: false }, 'copies of one value count once')
    t.equal(calls.n, 2)
    const seven = Array.from({ length: 7 }, (_, i) => `sid=${forged(id(String(i)))}`)
    t.same(c.read(req([...seven, valid, valid].join('; '))), { id: own, retired: false }, 'the 8th distinct value')
    const eight = [...seven, `sid=${forged(id('7'))}`]
    t.equal(c.read(req([...eight, valid].join('; '))), undefined, 'the 9th distinct value is not tried')
  })

  t.test('verifies a value with every secret, still once per distinct value', async (t) => {
    const { calls, cookie } = await counting()
    const c = cookie([SECRET, 'old-session-secret-0123456789abcdef'])
    const header = Array.from({ length: 100 }, (_, i) => `sid=${forged(id(i % 2 === 0 ? 'A' : 'B'))}`).join('; ')
    t.equal(c.read(req(header)), undefined)
    t.equal(calls.n, 4, `two values, two secrets (ran ${calls.n})`)
  })
})
