// Prefix middleware on /admin over a real socket, with request targets written byte for byte (node:net): the router
// and Node read the raw target, which `inject` and HTTP clients normalise. A request that reaches a route at /admin (a
// file of the folder's admin/, or a handler whose route and parameters read /admin) must have run the guard.
import net from 'node:net'
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import { fw_plugin } from '../../adapters/plugin.js'
import { App } from '../../index.js'
import { listening } from '../helpers/build.js'

/** Sends a `method` request with `target` as its request target, as written; the status and body of the answer. */
function raw(port: number, target: string, method = 'GET'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    let data = ''
    socket.setEncoding('latin1')
    socket.on('data', (d: string) => (data += d))
    socket.on('error', reject)
    socket.on('end', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0)
      const at = data.indexOf('\r\n\r\n')
      resolve({ status, body: at === -1 ? '' : data.slice(at + 4) })
    })
    socket.write(`${method} ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 'latin1')
  })
}

/** A folder with `admin/secret.txt` (behind the guard) and `public.txt`, removed when the test ends. */
function folder(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'fw-prefix-'))
  mkdirSync(join(dir, 'admin'))
  writeFileSync(join(dir, 'admin', 'secret.txt'), 'SECRET')
  writeFileSync(join(dir, 'public.txt'), 'PUBLIC')
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** The guard on /admin, routes that can be reached at /admin, and the folder served at the root. */
function admin_app(app: App, dir: string): void {
  app.use('/admin', (_req, res) => void res.error(401, 'guarded', 'the admin guard ran'))
  app.get('/admin/stats', (_req, res) => void res.json('reached', '/admin/stats'))
  app.get('/{section}/stats', (req, res) => void res.json('reached', `/${req.param('section')}/stats`))
  app.get('/{section}/x/*', (req, res) => void res.json('reached', `/${req.param('section')}/x/${req.param('*')}`))
  app.static_dir(dir)
}

/** Whether an answer came from behind the guard: the secret file, or a handler that read its path as /admin. */
function reached_admin(body: string): boolean {
  if (body === 'SECRET') return true
  if (!body.startsWith('{"reached"')) return false
  const reached = (JSON.parse(body) as { reached: string }).reached
  const segs: string[] = []
  for (const seg of reached.split(/[\\/]/))
    if (seg === '..') segs.pop()
    else if (seg !== '' && seg !== '.') segs.push(seg)
  return segs[0]?.toLowerCase() === 'admin'
}

async function check(t: Test, port: number, target: string): Promise<void> {
  for (const method of ['GET', 'HEAD', 'OPTIONS']) {
    const r = await raw(port, target, method)
    if (method === 'GET') t.notOk(reached_admin(r.body), `GET ${target}: ${r.status} ${r.body.slice(0, 60)}`)
    // HEAD and OPTIONS answer no body: they are under the guard when GET is, and must be refused alike.
    else if (reached_admin((await raw(port, target, 'GET')).body)) t.fail(`${method} ${target}: ${r.status}`)
    else if (r.status === 401) t.pass(`${method} ${target}: the guard ran`)
  }
}

t.test('a fragment in the request target does not hide the rest of the path from prefix middleware', async (t) => {
  const { port } = await listening(t, (app) => admin_app(app, folder(t)))
  // The router ends the path at `#`; read whole, `/#/../..` climbed out of /admin.
  await check(t, port, '/%2Fadmin/secret.txt#/../..')
  await check(t, port, '/%2Fadmin/stats#/../..')
  await check(t, port, '/v/x/..%2F..%2Fadmin/y#/../../..')
  t.equal((await raw(port, '/%2Fadmin/secret.txt#/../..')).status, 401, 'the guard answered')
})

t.test('an absolute-form request target is read from its path, as the router reads it', async (t) => {
  const { port } = await listening(t, (app) => admin_app(app, folder(t)))
  for (const target of ['http://x/%2Fadmin/secret.txt', 'HTTP://x/%2Fadmin/secret.txt', 'http://x/%2Fadmin/stats'])
    await check(t, port, target)
  t.equal((await raw(port, 'http://x:80/%2Fadmin/secret.txt')).status, 401, 'the guard answered')
})

t.test(
  'a request target that does not start with / is read from its second character, as the router reads it',
  async (t) => {
    const { port } = await listening(t, (app) => admin_app(app, folder(t)))
    await check(t, port, '*%2Fadmin/secret.txt')
    await check(t, port, '*%2Fadmin/stats')
    t.equal((await raw(port, '*%2Fadmin/secret.txt')).status, 401, 'the guard answered')
  },
)

t.test('a host router splitting at `;`: the wildcard is read as its handler resolves it', async (t) => {
  const dir = folder(t)
  const app = new App({ access_log: false })
  admin_app(app, dir)
  const host = Fastify({ useSemicolonDelimiter: true })
  await host.register(fw_plugin, { app })
  t.teardown(() => host.close())
  await host.listen({ port: 0, host: '127.0.0.1' })
  const port = (host.server.address() as net.AddressInfo).port
  await check(t, port, '/%2Fadmin/secret.txt;/../..')
  await check(t, port, '/x/%2e%2e/admin/secret.txt;/../..')
  await check(t, port, '/v/x/..%2F..%2Fadmin/y;/../../..')
})

t.test('encodings and forms that hold: the guard runs or no /admin route is reached', async (t) => {
  const { port } = await listening(t, (app) => admin_app(app, folder(t)))
  const targets = [
    '/admin/secret.txt',
    '/%61dmin/secret.txt',
    '/%2Fadmin/secret.txt',
    '/admin%2Fsecret.txt',
    '/%2e%2e/admin/secret.txt',
    '/%252e/admin/secret.txt',
    '/%2561dmin/stats',
    '/admin;x/stats',
    '/admin;x/secret.txt',
    '/\\admin/secret.txt',
    '//admin/secret.txt',
    '/./admin/secret.txt',
    '/admin./stats',
    '/admin%20/stats',
    '/admin%00/stats',
    '/%c0%ae/admin/secret.txt',
    '/%c0%aE%c0%ae/admin/secret.txt',
    '/admin?x=/../stats',
    '/admin/secret.txt#x',
    '/x/../admin/secret.txt',
    '/admin/..',
    '/admin/stats/',
    '/ADMIN/stats',
    '/AdMiN/secret.txt',
    '/%41DMIN/secret.txt',
    '/adm%C4%B0n/stats',
    '/adm%C4%B1n/stats',
    '/%EF%BD%81dmin/stats',
    'http://x/admin/secret.txt',
    'ftp://x/%2Fadmin/secret.txt',
    'http://x?/%2Fadmin/secret.txt',
    'http://x#/%2Fadmin/secret.txt',
    '*',
    'xadmin/secret.txt',
    '/%2Fadmin/secret.txt%',
  ]
  for (const target of targets) await check(t, port, target)
  t.equal((await raw(port, '/public.txt')).body, 'PUBLIC', 'the folder serves its other files')
})
