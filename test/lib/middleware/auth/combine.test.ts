import { createSigner } from 'fast-jwt'
import t from 'tap'
import { App, adapt_ctx, type CtxMiddleware, type Request } from '../../../../index.js'
import { Identity, set_identity } from '../../../../lib/identity.js'
import { api_key } from '../../../../lib/middleware/auth/api-key.js'
import { all_of, any_of } from '../../../../lib/middleware/auth/combine.js'
import { jwt } from '../../../../lib/middleware/auth/jwt.js'
import { rbac_context } from '../../../../lib/middleware/auth/rbac.js'
import { require_role } from '../../../../lib/middleware/auth/rbac-checks.js'
import { ApiKey, JwtClaims } from '../../../../lib/middleware/auth/state.js'
import { THENABLE_KINDS } from '../../../helpers/thenable.js'
import { build, error_body, throws_coded } from './build.js'

const SECRET = 'combine-test-secret-0123456789abcdef'
const KEY = 'k-0123456789abcdef'
const sign = createSigner({ key: SECRET, algorithm: 'HS256' })
const token = (payload: object) => `Bearer ${sign(payload)}`
const keys = () => api_key({ allowed_keys: [KEY], label: () => 'reports-service' })
const bearer = () => jwt({ secret: SECRET })
const who = (req: Request) => {
  const i = req.state(Identity)
  return {
    who: i === undefined ? null : `${i.kind}:${i.id}`,
    key: req.state(ApiKey) !== undefined,
    claims: req.state(JwtClaims) !== undefined,
  }
}

t.test('auth.any_of', async (t) => {
  t.test('accepts an API key or a JWT on one route, the first that accepts setting the Identity', async (t) => {
    const { app, calls } = build(t, [any_of(keys(), bearer())], who)
    const by_key = await app.inject({ url: '/p', headers: { 'x-api-key': KEY } })
    t.same(
      [by_key.statusCode, by_key.json()],
      [200, { ok: true, who: 'api_key:reports-service', key: true, claims: false }],
    )
    const by_jwt = await app.inject({ url: '/p', headers: { authorization: token({ sub: 'ada' }) } })
    t.same([by_jwt.statusCode, by_jwt.json()], [200, { ok: true, who: 'jwt:ada', key: false, claims: true }])
    const both = await app.inject({ url: '/p', headers: { 'x-api-key': KEY, authorization: token({ sub: 'ada' }) } })
    t.same(both.json(), { ok: true, who: 'api_key:reports-service', key: true, claims: false }, 'the first one wins')
    t.equal(calls.n, 3)
  })

  t.test('answers the first refusal when no credential came', async (t) => {
    const { app, calls } = build(t, [any_of(keys(), bearer())])
    const r = await app.inject({ url: '/p' })
    t.equal(r.statusCode, 401)
    t.same(r.json(), error_body('missing_api_key', 'API key required'))
    t.equal(
      r.headers['www-authenticate'],
      'ApiKey header="x-api-key", Bearer',
      'the challenge of each, as a 401 needs one',
    )
    const swapped = await build(t, [any_of(bearer(), keys())]).app.inject({ url: '/p' })
    t.same([swapped.statusCode, swapped.json()], [401, error_body('missing_token', 'Missing bearer token')])
    t.equal(swapped.headers['www-authenticate'], 'Bearer, ApiKey header="x-api-key"')
    t.equal(calls.n, 0)
  })

  t.test(
    'answers a 401 for no credential with the challenge of every alternative, in order (RFC 9110 15.5.2)',
    async (t) => {
      // A 401 must carry WWW-Authenticate; the API key's refusal names its header, the JWT's says `Bearer`.
      const basic: CtxMiddleware = (ctx, next) =>
        ctx.req.header('x-user') === ''
          ? void ctx.res.header('WWW-Authenticate', 'Basic realm="fw"').error(401, 'missing_basic', 'No user')
          : next()
      const r = await build(t, [any_of(keys(), bearer())]).app.inject({ url: '/p' })
      t.same([r.statusCode, r.json()], [401, error_body('missing_api_key', 'API key required')])
      t.equal(r.headers['www-authenticate'], 'ApiKey header="x-api-key", Bearer')
      const several = await build(t, [any_of(keys(), basic, bearer(), bearer())]).app.inject({ url: '/p' })
      t.equal(
        several.headers['www-authenticate'],
        'ApiKey header="x-api-key", Basic realm="fw", Bearer',
        'in order, each once',
      )
      const bad_key = await build(t, [any_of(keys(), bearer())]).app.inject({
        url: '/p',
        headers: { 'x-api-key': 'x' },
      })
      t.same([bad_key.statusCode, bad_key.headers['www-authenticate']], [403, undefined], 'a 403 needs none')
      const bad_jwt = await build(t, [any_of(basic, bearer())]).app.inject({
        url: '/p',
        headers: { authorization: 'Bearer not.a.token' },
      })
      t.equal(bad_jwt.headers['www-authenticate'], 'Bearer error="invalid_token"', 'a bad credential: its own only')
    },
  )

  t.test('prefers the refusal of a credential that came but was bad over a missing one', async (t) => {
    const { app, calls } = build(t, [any_of(keys(), bearer())])
    const bad_jwt = await app.inject({ url: '/p', headers: { authorization: 'Bearer not.a.token' } })
    t.same([bad_jwt.statusCode, bad_jwt.json()], [401, error_body('invalid_token', 'Invalid token')])
    t.equal(bad_jwt.headers['www-authenticate'], 'Bearer error="invalid_token"')
    const bad_key = await app.inject({ url: '/p', headers: { 'x-api-key': 'wrong' } })
    t.same([bad_key.statusCode, bad_key.json()], [403, error_body('invalid_api_key', 'Invalid API key')])
    const both_bad = await app.inject({ url: '/p', headers: { 'x-api-key': 'wrong', authorization: 'Bearer x' } })
    t.same(both_bad.json(), error_body('invalid_api_key', 'Invalid API key'), 'the first bad one')
    t.equal(calls.n, 0)
  })

  t.test('leaves no state of an authenticator that stored some and then refused', async (t) => {
    const half: CtxMiddleware = (ctx) => {
      set_identity(ctx.req, ctx.res, { kind: 'header', id: 'half' })
      ctx.res.error(401, 'invalid_user', 'Bad user')
    }
    const anyone: CtxMiddleware = (_ctx, next) => next()
    const { app } = build(t, [any_of(half, anyone)], who)
    const r = await app.inject({ url: '/p' })
    t.same([r.statusCode, r.json()], [200, { ok: true, who: null, key: false, claims: false }])
  })

  t.test('feeds rbac_context and the role checks from either credential', async (t) => {
    const { app } = build(t, [any_of(keys(), bearer()), rbac_context(), require_role('admin')])
    const admin = await app.inject({ url: '/p', headers: { authorization: token({ sub: 'a', roles: ['admin'] }) } })
    t.equal(admin.statusCode, 200)
    const key = await app.inject({ url: '/p', headers: { 'x-api-key': KEY } })
    t.same([key.statusCode, key.json()], [403, error_body('forbidden', 'Missing required role')])
  })

  t.test('keeps the headers an accepting authenticator sets, and runs the handler once', async (t) => {
    const tagging: CtxMiddleware = (ctx, next) => {
      if (ctx.req.header('x-user') === '') return void ctx.res.error(401, 'missing_user', 'No user')
      ctx.res.header('x-auth', 'user')
      set_identity(ctx.req, ctx.res, { kind: 'header', id: ctx.req.header('x-user') })
      return next()
    }
    const { app, calls } = build(t, [any_of(tagging, bearer())], who)
    const r = await app.inject({ url: '/p', headers: { 'x-user': 'u1' } })
    t.same([r.statusCode, r.headers['x-auth'], r.json().who], [200, 'user', 'header:u1'])
    t.equal(calls.n, 1)
  })

  t.test("counts a custom authenticator's missing_ refusal as no credential", async (t) => {
    const custom: CtxMiddleware = (ctx, next) =>
      ctx.req.header('x-user') === '' ? void ctx.res.error(401, 'missing_user', 'No user') : next()
    const denying: CtxMiddleware = (ctx) => void ctx.res.error(401, 'bad_user', 'Bad user')
    const bad_jwt = { authorization: 'Bearer not.a.token' }
    const missing = await build(t, [any_of(custom, bearer())]).app.inject({ url: '/p', headers: bad_jwt })
    t.same(missing.json(), error_body('invalid_token', 'Invalid token'))
    const present = await build(t, [any_of(denying, bearer())]).app.inject({ url: '/p', headers: bad_jwt })
    t.same(present.json(), error_body('bad_user', 'Bad user'))
  })

  t.test('refuses at startup no authenticator, or one that is not context middleware', async (t) => {
    throws_coded(
      t,
      () => any_of(),
      'FW_ERR_AUTH_BAD_COMBINATION',
      /^any_of: give at least one authenticator; got none$/,
    )
    throws_coded(
      t,
      () => any_of(keys(), 'jwt' as unknown as CtxMiddleware),
      'FW_ERR_AUTH_BAD_COMBINATION',
      /^any_of: authenticator 2 must be context middleware; got "jwt"$/,
    )
    throws_coded(
      t,
      () => any_of(adapt_ctx(keys()) as unknown as CtxMiddleware),
      'FW_ERR_AUTH_BAD_COMBINATION',
      /^any_of: authenticator 1 is App middleware; pass it before adapt_ctx$/,
    )
    throws_coded(t, () => all_of(), 'FW_ERR_AUTH_BAD_COMBINATION', /^all_of: give at least one authenticator/)
  })

  t.test('counts as authentication for the order check of a per-user rate limit', async (t) => {
    const app = new App({ access_log: false })
    t.teardown(() => app.close())
    const { rate_limit } = await import('../../../../lib/middleware/security/rate-limit.js')
    app.use(adapt_ctx(rate_limit({ max_requests: 5, window_seconds: 60, key: 'user' })))
    app.use(adapt_ctx(any_of(keys(), bearer())))
    app.get('/p', (_req, res) => void res.send())
    await t.rejects(app.inject({ url: '/p' }), { code: 'FW_ERR_APP_IDENTITY_ORDER' })
  })
})

t.test('auth.all_of', async (t) => {
  t.test('lets the caller in only with every credential, keeping the first Identity', async (t) => {
    const { app, calls } = build(t, [all_of(bearer(), keys())], who)
    const both = await app.inject({ url: '/p', headers: { 'x-api-key': KEY, authorization: token({ sub: 'ada' }) } })
    t.same([both.statusCode, both.json()], [200, { ok: true, who: 'jwt:ada', key: true, claims: true }])
    const key_only = await app.inject({ url: '/p', headers: { 'x-api-key': KEY } })
    t.same([key_only.statusCode, key_only.json()], [401, error_body('missing_token', 'Missing bearer token')])
    const jwt_only = await app.inject({ url: '/p', headers: { authorization: token({ sub: 'ada' }) } })
    t.same([jwt_only.statusCode, jwt_only.json()], [401, error_body('missing_api_key', 'API key required')])
    t.equal(calls.n, 1)
  })

  t.test("answers a 401 with the refusing authenticator's challenge (RFC 9110 15.5.2)", async (t) => {
    const key_first = build(t, [all_of(keys(), bearer())]).app
    const none = await key_first.inject({ url: '/p' })
    t.same(
      [none.statusCode, none.json(), none.headers['www-authenticate']],
      [401, error_body('missing_api_key', 'API key required'), 'ApiKey header="x-api-key"'],
    )
    const key_only = await key_first.inject({ url: '/p', headers: { 'x-api-key': KEY } })
    t.same(
      [key_only.statusCode, key_only.json(), key_only.headers['www-authenticate']],
      [401, error_body('missing_token', 'Missing bearer token'), 'Bearer'],
    )
    const jwt_first = build(t, [all_of(bearer(), keys())]).app
    const jwt_only = await jwt_first.inject({ url: '/p', headers: { authorization: token({ sub: 'ada' }) } })
    t.same(
      [jwt_only.statusCode, jwt_only.json(), jwt_only.headers['www-authenticate']],
      [401, error_body('missing_api_key', 'API key required'), 'ApiKey header="x-api-key"'],
    )
    const bad_key = await key_first.inject({ url: '/p', headers: { 'x-api-key': 'wrong' } })
    t.same([bad_key.statusCode, bad_key.headers['www-authenticate']], [403, undefined], 'a 403 needs none')
  })

  t.test('refused by a later authenticator, leaves none of the state of those that accepted before it', async (t) => {
    const seen: object[] = []
    const app = new App({ access_log: false })
    t.teardown(() => app.close())
    // Middleware around the combination reads the state once the chain has answered, as an access line does.
    app.use('/p', async (req, _res, next) => {
      await next()
      seen.push(who(req))
    })
    app.use('/p', adapt_ctx(all_of(bearer(), keys())))
    app.get('/p', (req, res) => void res.json({ ok: true, ...who(req) }))
    const jwt_only = await app.inject({ url: '/p', headers: { authorization: token({ sub: 'ada' }) } })
    t.same([jwt_only.statusCode, jwt_only.json()], [401, error_body('missing_api_key', 'API key required')])
    const both = await app.inject({ url: '/p', headers: { 'x-api-key': KEY, authorization: token({ sub: 'ada' }) } })
    t.equal(both.statusCode, 200)
    t.same(seen, [
      { who: null, key: false, claims: false },
      { who: 'jwt:ada', key: true, claims: true },
    ])
  })

  t.test('refused inside any_of, lends no Identity to an alternative that lets anyone in', async (t) => {
    // The partner's pair of credentials, or anyone at all; roles come only from an Identity.
    const anyone: CtxMiddleware = (_ctx, next) => next()
    const mws = [any_of(all_of(bearer(), keys()), anyone)]
    const open = build(t, mws, who).app
    const admin_jwt = { authorization: token({ sub: 'ada', roles: ['admin'] }) }
    const r = await open.inject({ url: '/p', headers: admin_jwt })
    t.same([r.statusCode, r.json()], [200, { ok: true, who: null, key: false, claims: false }])
    const guarded = build(t, [...mws, rbac_context(), require_role('admin')]).app
    const without_key = await guarded.inject({ url: '/p', headers: admin_jwt })
    // Before, the JWT's Identity (roles: admin) stayed from the all_of that refused, and the role check let it in.
    t.same([without_key.statusCode, without_key.json()], [401, error_body('missing_auth', 'Authentication required')])
    const with_key = await guarded.inject({ url: '/p', headers: { ...admin_jwt, 'x-api-key': KEY } })
    t.equal(with_key.statusCode, 200)
  })

  t.test('waits for an authenticator answering a thenable (a promise library, a lazy builder, a realm)', async (t) => {
    for (const [kind, wrap] of Object.entries(THENABLE_KINDS)) {
      // A custom authenticator that looks the caller up (its `then` not native) and goes on, or refuses, inside it.
      // Cast: `CtxMiddleware` is typed `void | Promise<void>`; JavaScript code returns any thenable without one.
      const looked_up: CtxMiddleware = (ctx, next) =>
        wrap(() =>
          new Promise((resolve) => setTimeout(resolve, 5)).then(() => {
            if (ctx.req.header('x-user') !== 'ada') return void ctx.res.error(401, 'unknown_user', 'Unknown user')
            set_identity(ctx.req, ctx.res, { kind: 'user', id: 'ada' })
            return next()
          }),
        ) as Promise<void>
      const { app, calls } = build(t, [all_of(looked_up, keys())], who)
      const both = await app.inject({ url: '/p', headers: { 'x-user': 'ada', 'x-api-key': KEY } })
      t.same([both.statusCode, both.json()], [200, { ok: true, who: 'user:ada', key: true, claims: false }], kind)
      const no_key = await app.inject({ url: '/p', headers: { 'x-user': 'ada' } })
      t.same([no_key.statusCode, no_key.json()], [401, error_body('missing_api_key', 'API key required')], kind)
      const unknown = await app.inject({ url: '/p', headers: { 'x-user': 'bob', 'x-api-key': KEY } })
      t.same([unknown.statusCode, unknown.json()], [401, error_body('unknown_user', 'Unknown user')], kind)
      t.equal(calls.n, 1, `${kind}: the handler ran for the caller with both only`)
    }
  })
})

t.test('OpenAPI security of the combinators', async (t) => {
  const app = new App({ access_log: false })
  t.teardown(() => app.close())
  const on = (prefix: string, m: CtxMiddleware) => {
    app.use(prefix, adapt_ctx(m))
    app.get(prefix, (_req, res) => void res.send())
  }
  on('/either', any_of(keys(), bearer()))
  on('/both', all_of(bearer(), keys()))
  on('/nested', any_of(all_of(bearer(), keys()), keys()))
  app.openapi({ info: { title: 't', version: '1' } })
  const doc = (await app.inject({ url: '/openapi.json' })).json()
  const op = (path: string) => doc.paths[path].get as { security: unknown; responses: Record<string, unknown> }
  t.same(op('/either').security, [{ api_key: [] }, { bearer_jwt: [] }], 'alternatives: several objects')
  t.same(op('/both').security, [{ bearer_jwt: [], api_key: [] }], 'together: one object')
  t.same(op('/nested').security, [{ bearer_jwt: [], api_key: [] }, { api_key: [] }])
  t.same(Object.keys(op('/either').responses).sort(), ['2XX', '401', '403'])
  t.same(Object.keys(doc.components.securitySchemes).sort(), ['api_key', 'bearer_jwt'])
})
