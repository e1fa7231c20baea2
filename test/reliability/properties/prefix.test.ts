// Property: prefix middleware on /admin runs for every request that reaches an /admin route, whatever the encoding of
// its path (percent-encoding of any byte, hex case, //, /./, /../, %2f, %5c, backslashes, overlong UTF-8, NUL). Real
// sockets: the path goes on the wire exactly as generated, with no client-side normalisation. A route is reached at
// /admin when its section parameter, as its handler reads it, is `admin` in any case (the router takes `..` as it
// comes: `/admin/..` is section `admin`, page `..`), or when the path it rebuilds resolves to /admin.
import http from 'node:http'
import fc from 'fast-check'
import t from 'tap'
import type { Response } from '../../../index.js'
import { canonical_segments } from '../../../lib/path.js'
import { listening } from '../../helpers/build.js'

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 })

/** GET `path` as written; the status and body. Paths node:http refuses to send count as refused by the server. */
function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let req: http.ClientRequest
    try {
      req = http.request({ host: '127.0.0.1', port, path, agent }, (res) => {
        let body = ''
        res
          .setEncoding('utf8')
          .on('data', (d: string) => (body += d))
          .on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      })
    } catch {
      return resolve({ status: -1, body: '' })
    }
    req.on('error', reject).end()
  })
}

/** One character of a path, written literally, percent-encoded (either hex case), or as an overlong UTF-8 form. */
const encoded_char = (c: string): fc.Arbitrary<string> => {
  const hex = c.charCodeAt(0).toString(16).padStart(2, '0')
  const overlong = `%${(0xc0 | (c.charCodeAt(0) >> 6)).toString(16)}%${(0x80 | (c.charCodeAt(0) & 0x3f)).toString(16)}`
  return fc.constantFrom(c, c.toUpperCase(), `%${hex}`, `%${hex.toUpperCase()}`, overlong)
}
const encoded_word = (word: string): fc.Arbitrary<string> =>
  fc.tuple(...[...word].map(encoded_char)).map((cs) => cs.join(''))
const separator = fc.constantFrom('/', '//', '/./', '%2f', '%2F', '\\', '%5c', '%5C', '/%2e/', '/%2E/')
/** Noise that cancels out: a segment then `..`, in any encoding. */
const detour = fc
  .tuple(fc.constantFrom('x', 'api', 'admin', 'a%00b'), fc.constantFrom('..', '%2e%2e', '.%2E', '%2E.'))
  .map(([s, up]) => `${s}/${up}/`)
const tail = fc.constantFrom(
  'stats',
  'users/7',
  'files/a/b',
  'STATS',
  'st%61ts',
  'x%00',
  '',
  // Climbing back out of /admin after reaching it: the router's parameters still say admin.
  '..',
  '%2e%2e',
  '.%2E',
  'x/../..',
  'x/%2e%2e/%2E%2E',
)

/** Paths built to reach an /admin route by some encoding, and fully random ones over the same pieces. */
const admin_path = fc
  .tuple(
    fc.constantFrom('', '/'),
    fc.array(detour, { maxLength: 2 }),
    encoded_word('admin'),
    separator,
    tail,
    fc.constantFrom('', '?q=1', '/'),
  )
  .map(([lead, detours, admin, sep, rest, end]) =>
    `/${lead}${detours.join('')}${admin}${sep}${rest}${end}`.replace(/^\/\//, '/'),
  )
const random_path = fc
  .array(
    fc.oneof(encoded_word('admin'), separator, detour, tail, fc.string({ maxLength: 3 }).map(encodeURIComponent)),
    { maxLength: 8 },
  )
  .map((parts) => '/' + parts.join(''))

t.test('prefix middleware on /admin', async (t) => {
  const { port } = await listening(t, (app) => {
    app.use('/admin', (_req, res) => void res.error(401, 'guarded', 'the admin guard ran'))
    // Each handler answers its section and the path it was reached at, rebuilt from its route and the router's decoded
    // parameters.
    const answer = (res: Response, section: string, reached: string): void =>
      void res.json('section', section, 'reached', reached)
    app.get('/admin/stats', (_req, res) => answer(res, 'admin', '/admin/stats'))
    app.get('/{section}/stats', (req, res) => answer(res, req.param('section'), `/${req.param('section')}/stats`))
    app.get('/{section}/users/{id}', (req, res) =>
      answer(res, req.param('section'), `/${req.param('section')}/users/${req.param('id')}`),
    )
    app.get('/{section}/*', (req, res) =>
      answer(res, req.param('section'), `/${req.param('section')}/${req.param('*')}`),
    )
    app.get('/{section}', (req, res) => answer(res, req.param('section'), `/${req.param('section')}`))
  })
  t.teardown(() => agent.destroy())
  const statuses = new Map<number, number>()
  const check = async (path: string): Promise<boolean> => {
    const r = await get(port, path)
    statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1)
    if (r.status !== 200) return true
    const { section, reached } = JSON.parse(r.body) as { section: string; reached: string }
    if (section.toLowerCase() === 'admin') return false
    // `reached` is decoded: a `?` or `#` in it is data (`/admin%3F` reaches `/{section}` with section `admin?`, not
    // /admin).
    return canonical_segments(reached.replace(/\?/g, '%3F').replace(/#/g, '%23'))[0] !== 'admin'
  }
  await fc.assert(fc.asyncProperty(admin_path, check), { numRuns: 400 })
  await fc.assert(fc.asyncProperty(random_path, check), { numRuns: 400 })
  t.pass('no request reached an /admin route without the guard (800 generated paths)')
  // The generators are random: over 23 runs of the suite the guard answered 98-158 of the 800 (about 125), so a bound
  // of 100 failed one run in twenty by chance. 50 still fails a generator that stopped reaching the guard.
  t.ok(
    (statuses.get(401) ?? 0) > 50 && (statuses.get(200) ?? 0) > 0,
    'the paths exercise both the guard and the routes',
  )
  t.comment(`answers by status: ${JSON.stringify(Object.fromEntries(statuses))}`)
})
