// The chat demo over real sockets: who a message is from (guest, session name, token subject), rooms kept apart, the
// auth-required route refusing an upgrade without a token, and the name route's bad input.
import { runInNewContext } from 'node:vm'
import t from 'tap'
import { setup_chat } from '../../demo/chat.js'
import { sign_dev_token } from '../../lib/middleware/app/index.js'
import { listening } from '../helpers/build.js'
import { connect, refused, type Client } from '../helpers/ws.js'

const JWT_SECRET = 'chat-test-jwt-secret-0123456789-0123456789'
/** The Content-Type `req.json()` parses. */
const JSON_TYPE = { 'content-type': 'application/json' }
const options = { session_secret: 'chat-test-session-secret-0123456789', jwt_secret: JWT_SECRET }

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** The next chat message, parsed. */
const next = async (c: Client): Promise<Record<string, string>> =>
  JSON.parse(String(await c.next())) as Record<string, string>

/**
 * Runs the page's inline script, as served, against a stand-in DOM at `pathname`; submits the join and name forms and
 * answers the URLs the page opened a socket to and fetched.
 */
async function page_urls(html: string, pathname: string): Promise<{ socket: string; fetched: string }> {
  const script = /<script>([\s\S]*)<\/script>/.exec(html)![1]!
  const listeners = new Map<string, (e: unknown) => unknown>()
  const element = (id: string) => ({
    value: id === 'room' ? 'lobby' : '',
    textContent: '',
    addEventListener: (_type: string, fn: (e: unknown) => unknown) => listeners.set(id, fn),
    replaceChildren: () => {},
    append: () => {},
  })
  const elements = new Map<string, ReturnType<typeof element>>()
  const urls = { socket: '', fetched: '' }
  class FakeSocket {
    static OPEN = 1
    constructor(url: string) {
      urls.socket = url
    }
    addEventListener(): void {}
  }
  runInNewContext(script, {
    location: { pathname, protocol: 'http:', host: 'h' },
    document: { getElementById: (id: string) => elements.get(id) ?? elements.set(id, element(id)).get(id) },
    WebSocket: FakeSocket,
    fetch: async (url: string) => {
      urls.fetched = url
      return { ok: true, json: async () => ({ name: 'x' }) }
    },
  })
  listeners.get('join-form')!({ preventDefault: () => {} })
  await listeners.get('name-form')!({ preventDefault: () => {} })
  return urls
}

t.test('chat demo', async (t) => {
  const { port } = await listening(t, (app) => setup_chat(app, app, options))

  t.test('broadcasts {room, from, text, at} to the room only, from guest-<n>', async (t) => {
    const a = await connect(port, '/ws/chat/lobby')
    const b = await connect(port, '/ws/chat/lobby')
    const c = await connect(port, '/ws/chat/other')
    for (const x of [a, b, c]) t.equal((await next(x)).from, 'server', 'welcome')
    a.ws.send('hello')
    const seen_by_b = await next(b)
    t.same(Object.keys(seen_by_b), ['room', 'from', 'text', 'at'])
    t.equal(seen_by_b.room, 'lobby')
    t.match(seen_by_b.from, /^guest-\d+$/)
    t.equal(seen_by_b.text, 'hello')
    t.ok(!Number.isNaN(Date.parse(seen_by_b.at!)))
    t.same(await next(a), seen_by_b, 'the sender sees its own message')
    t.equal(await c.poll(200), undefined, 'another room hears nothing')
    for (const x of [a, b, c]) x.ws.close()
  })

  t.test("uses the session's name, or the bearer token's subject", async (t) => {
    const r = await fetch(`http://127.0.0.1:${port}/chat/name`, {
      method: 'POST',
      body: JSON.stringify({ name: 'ada' }),
      headers: { 'content-type': 'application/json' },
    })
    t.same(await r.json(), { ok: true, name: 'ada' })
    const cookie = r.headers.get('set-cookie')!.split(';')[0]!
    const named = await connect(port, '/ws/chat/n', { cookie })
    await next(named)
    named.ws.send('hi')
    t.equal((await next(named)).from, 'ada')
    const token = await connect(port, '/ws/chat/n', {
      authorization: `Bearer ${sign_dev_token(JWT_SECRET, { sub: 'grace' })}`,
    })
    await next(token)
    token.ws.send('hey')
    t.equal((await next(token)).from, 'grace')
    named.ws.close()
    token.ws.close()
  })

  t.test("refuses another site's page opening a socket with the user's session (403, no socket)", async (t) => {
    const r = await fetch(`http://127.0.0.1:${port}/chat/name`, {
      method: 'POST',
      body: JSON.stringify({ name: 'ada' }),
      headers: { 'content-type': 'application/json' },
    })
    const cookie = r.headers.get('set-cookie')!.split(';')[0]!
    const hijack = await refused(port, '/ws/chat/lobby', { cookie, origin: 'https://evil.example' })
    t.equal(hijack.status, 403)
    t.same(JSON.parse(hijack.body), { ok: false, error: 'origin_forbidden', message: 'Origin not allowed' })
    // The chat page itself is served from the same host, so its socket opens.
    const own = await connect(port, '/ws/chat/lobby', { cookie, origin: `http://127.0.0.1:${port}` })
    t.equal((await next(own)).text, 'welcome, ada')
    own.ws.close()
  })

  t.test('refuses a bad token on the open route and no token on the private one with 401', async (t) => {
    const bad = await refused(port, '/ws/chat/lobby', { authorization: 'Bearer nope' })
    t.equal(bad.status, 401)
    t.equal(JSON.parse(bad.body).error, 'invalid_token')
    const none = await refused(port, '/ws/private/lobby')
    t.equal(none.status, 401)
    t.same(JSON.parse(none.body), { ok: false, error: 'missing_token', message: 'Missing bearer token' })
    const ok = await connect(port, '/ws/private/lobby', {
      authorization: `Bearer ${sign_dev_token(JWT_SECRET, { sub: 'linus' })}`,
    })
    t.match(await next(ok), { from: 'server', text: 'welcome, linus' })
    ok.ws.close()
  })

  t.test('refuses a bad name with 400 invalid_name', async (t) => {
    for (const name of ['', 'has space', 'x'.repeat(25), '<b>']) {
      const r = await fetch(`http://127.0.0.1:${port}/chat/name`, {
        method: 'POST',
        headers: JSON_TYPE,
        body: JSON.stringify({ name }),
      })
      t.equal(r.status, 400, name)
      t.same(await r.json(), { ok: false, error: 'invalid_name', message: 'name must be 1-24 letters, digits, _ or -' })
    }
  })

  t.test("refuses the server's name and guest-<n>, so nobody posts as the server or as another guest", async (t) => {
    for (const name of ['server', 'Server', 'guest-1', 'GUEST-12']) {
      const r = await fetch(`http://127.0.0.1:${port}/chat/name`, {
        method: 'POST',
        headers: JSON_TYPE,
        body: JSON.stringify({ name }),
      })
      t.equal(r.status, 400, name)
      t.same(await r.json(), { ok: false, error: 'invalid_name', message: 'name is reserved' }, name)
    }
    const ok = await fetch(`http://127.0.0.1:${port}/chat/name`, {
      method: 'POST',
      headers: JSON_TYPE,
      body: JSON.stringify({ name: 'guest' }),
    })
    t.equal(ok.status, 200, 'guest alone is a name like any other')
  })

  t.test("refuses a token whose subject is the server's name or guest-<n>: nobody posts as the server", async (t) => {
    for (const sub of ['server', 'Server', 'guest-1']) {
      for (const path of ['/ws/chat/lobby', '/ws/private/lobby']) {
        const r = await refused(port, path, { authorization: `Bearer ${sign_dev_token(JWT_SECRET, { sub })}` })
        t.same(
          [r.status, JSON.parse(r.body)],
          [400, { ok: false, error: 'invalid_name', message: 'name is reserved' }],
          `${sub} on ${path}`,
        )
      }
    }
    const ok = await connect(port, '/ws/chat/lobby', {
      authorization: `Bearer ${sign_dev_token(JWT_SECRET, { sub: 'servers' })}`,
    })
    t.match(await next(ok), { from: 'server', text: 'welcome, servers' }, 'a name that only starts like it is fine')
    ok.ws.close()
  })

  t.test('cuts a long message at 1,000 characters (code points), never inside a surrogate pair', async (t) => {
    const a = await connect(port, '/ws/chat/cut')
    await next(a)
    // 999 letters then emoji (2 UTF-16 units each): a cut at 1,000 units would keep the first emoji's high half alone.
    a.ws.send('x'.repeat(999) + '\u{1F600}'.repeat(5))
    const text = (await next(a)).text!
    t.equal(text, 'x'.repeat(999) + '\u{1F600}', '1,000 code points: 999 letters and a whole emoji')
    t.notMatch(text, LONE_SURROGATE, 'no lone surrogate')
    a.ws.send('\u{1F600}'.repeat(1001))
    t.equal((await next(a)).text, '\u{1F600}'.repeat(1000), '1,000 emoji (2,000 UTF-16 units)')
    const short = 'é\u{1F600}'.repeat(10)
    a.ws.send(short)
    t.equal((await next(a)).text, short, 'a short message is kept whole')
    a.ws.close()
  })

  t.test(
    'the page reached with doubled slashes still calls its own routes, never a protocol-relative URL',
    async (t) => {
      const html = await (await fetch(`http://127.0.0.1:${port}/chat`)).text()
      for (const pathname of ['/chat', '/chat/', '//chat', '/chat//', '//chat//']) {
        t.same(await page_urls(html, pathname), { socket: 'ws://h/ws/chat/lobby', fetched: '/chat/name' }, pathname)
        t.equal((await fetch(`http://127.0.0.1:${port}${pathname}`)).status, 200, `${pathname} serves the page`)
      }
    },
  )

  t.test('serves the page with a CSP allowing its own origin only', async (t) => {
    const r = await fetch(`http://127.0.0.1:${port}/chat`)
    t.equal(r.status, 200)
    t.match(r.headers.get('content-security-policy'), /connect-src 'self'/)
    t.match(await r.text(), /<title>fw chat<\/title>/)
  })
})
