import t from 'tap'
import { validate } from '@readme/openapi-parser'
import { expectTypeOf } from 'expect-type'
import { field, schema, type Type } from '../../../lib/validation/index.js'
import { build } from '../../helpers/build.js'
import { Tree, tree_text } from '../../helpers/deep-tree.js'

interface Comment {
  text: string
  replies?: Comment[]
}
const Comment: Type<Comment, true> = schema({
  text: field.string().required(),
  replies: field.array(field.lazy(() => Comment, { name: 'Comment' })),
})

/** A thread `depth` comments deep: each comment has one reply, the last none. */
function thread(depth: number): Comment {
  let c: Comment = { text: `c${depth}` }
  for (let i = depth - 1; i >= 1; i--) c = { text: `c${i}`, replies: [c] }
  return c
}

/** The JSON text of `thread(depth)`, built as text so that no deep recursion runs in the test itself. */
function thread_text(depth: number): string {
  return (
    Array.from({ length: depth - 1 }, (_, i) => `{"text":"c${i + 1}","replies":[`).join('') +
    `{"text":"c${depth}"}` +
    ']}'.repeat(depth - 1)
  )
}

/** The error path of the reply `levels` below the top comment (`replies/0/replies/0/...`). */
const below = (levels: number): string => Array.from({ length: levels }, () => 'replies/0').join('/')

t.test('field.lazy', async (t) => {
  t.test('validates a tree that refers to itself, typed as declared', async (t) => {
    const good = { text: 'a', replies: [{ text: 'b', replies: [{ text: 'c' }] }, { text: 'd' }] }
    const r = Comment.validate(good)
    t.same(r, { ok: true, value: good })
    if (r.ok) expectTypeOf(r.value).toEqualTypeOf<Comment>()
  })

  t.test('names a failing nested comment by its path', async (t) => {
    t.same(Comment.validate({ text: 'a', replies: [{ text: 'b' }, { text: 'c', replies: [{ text: 7 }] }] }), {
      ok: false,
      errors: [{ field: 'replies/1/replies/0/text', code: 'Type', message: 'text must be a string' }],
    })
    t.same(Comment.validate({ text: 'a', replies: [{ replies: 'x' }] }), {
      ok: false,
      errors: [
        { field: 'replies/0/text', code: 'Required', message: 'text is required' },
        { field: 'replies/0/replies', code: 'Type', message: 'replies must be an array' },
      ],
    })
  })

  t.test('accepts 1,000 nested replies and refuses the next with Depth', async (t) => {
    t.equal(Comment.validate(thread(1001)).ok, true)
    const r = Comment.validate(thread(1002))
    const e = r.ok ? undefined : r.errors
    t.equal(e?.length, 1)
    t.ok(e?.[0]?.field === below(1001), 'the path names the comment 1,001 replies down')
    t.same(
      { ...e?.[0], field: '' },
      { field: '', code: 'Depth', message: 'replies item is nested deeper than 1000 levels' },
    )
  })

  t.test('honours max_depth', async (t) => {
    const Node: Type<{ next?: unknown }, true> = schema({
      next: field.lazy(() => Node, { name: 'Node', max_depth: 2 }),
    })
    t.same(Node.validate({ next: { next: {} } }), { ok: true, value: { next: { next: {} } } })
    t.same(Node.validate({ next: { next: { next: {} } } }), {
      ok: false,
      errors: [{ field: 'next/next/next', code: 'Depth', message: 'next is nested deeper than 2 levels' }],
    })
  })

  t.test('throws FW_ERR_VALIDATION_BAD_LIMIT for a bad name or max_depth', async (t) => {
    t.throws(() => field.lazy(() => Comment, { name: 'a b' }), {
      code: 'FW_ERR_VALIDATION_BAD_LIMIT',
      message: 'lazy("a b"): expected a name of letters, digits, ".", "-" or "_"',
    })
    t.throws(() => field.lazy(() => Comment, { name: 'C', max_depth: -1 }), {
      code: 'FW_ERR_VALIDATION_BAD_LIMIT',
      message: 'lazy(max_depth: -1): expected a whole number >= 0',
    })
  })

  t.test('describes itself as a reference to its component', async (t) => {
    t.same(field.lazy(() => Comment, { name: 'Comment' }).json_schema(), { $ref: '#/components/schemas/Comment' })
  })
})

t.test('field.lazy on a route', async (t) => {
  const app = build(t, (app) => {
    app.post(
      '/threads',
      { body: Comment, summary: 'Post a thread' },
      (req, res) => void res.json('ok', true, 'text', req.valid('body').text),
    )
    app.openapi({ info: { title: 'Threads', version: '1.0.0' } })
  })
  const post = (body: string) =>
    app.inject({ method: 'POST', url: '/threads', payload: body, headers: { 'content-type': 'application/json' } })

  t.test('answers 200 at depth 1,000', async (t) => {
    const r = await post(thread_text(1000))
    t.equal(r.statusCode, 200)
    t.same(r.json(), { ok: true, text: 'c1' })
  })

  t.test('answers 400 Depth for a body nested 20,000 deep, and the server goes on', async (t) => {
    const r = await post(thread_text(20000))
    t.equal(r.statusCode, 400)
    const body = JSON.parse(r.body) as { error: string; errors: { field: string; code: string }[] }
    t.equal(body.error, 'validation_failed')
    t.same(
      body.errors.map((e) => e.code),
      ['Depth'],
    )
    t.ok(body.errors[0]?.field === below(1001), 'the path names the comment 1,001 replies down')
    t.equal((await post('{"text":"again"}')).statusCode, 200)
  })

  t.test('answers 400 for an invalid comment deep in the thread', async (t) => {
    const deep = thread(999) as unknown as { replies: unknown[] }
    let c = deep
    for (let i = 0; i < 997; i++) c = c.replies[0] as typeof c
    c.replies = [{ text: false }]
    const r = await post(JSON.stringify(deep))
    t.equal(r.statusCode, 400)
    const errors = (JSON.parse(r.body) as { errors: { field: string; code: string; message: string }[] }).errors
    t.same(
      errors.map((e) => [e.code, e.message]),
      [['Type', 'text must be a string']],
    )
    t.ok(errors[0]?.field === `${below(998)}/text`, 'the path names the text 998 replies down')
  })

  t.test('is documented once under components/schemas and referred to by $ref, in a valid document', async (t) => {
    const doc = (await app.inject({ url: '/openapi.json' })).json()
    t.same(doc.components.schemas.Comment, {
      type: 'object',
      properties: {
        text: { type: 'string', minLength: 1 },
        replies: { type: 'array', items: { $ref: '#/components/schemas/Comment' } },
      },
      required: ['text'],
    })
    t.same(doc.paths['/threads'].post.requestBody.content['application/json'].schema.properties.replies.items, {
      $ref: '#/components/schemas/Comment',
    })
    const result = await validate(structuredClone(doc))
    t.equal(result.valid, true, JSON.stringify(result.valid ? [] : result.errors))
  })
})

t.test('field.lazy depth on a route is counted per value, never carried over', async (t) => {
  interface Link {
    boom?: boolean
    next?: Link
  }
  const Link: Type<Link, true> = schema({
    boom: field.boolean().check((b) => {
      if (b) throw new Error('refinement bug')
      return true
    }, 'never'),
    next: field.lazy(() => Link, { name: 'Link', max_depth: 3 }),
  })
  const Other: Type<Link, true> = schema({ next: field.lazy(() => Other, { name: 'Other', max_depth: 3 }) })
  const Pair = schema({
    a: field.lazy(() => Link, { name: 'Link', max_depth: 3 }),
    b: field.lazy(() => Link, { name: 'Link', max_depth: 3 }),
    c: field.lazy(() => Other, { name: 'Other', max_depth: 3 }),
  })
  const app = build(t, (app) => {
    app.post('/pair', { body: Pair }, (_req, res) => void res.json('ok', true))
    app.post('/link', { body: Link }, (_req, res) => void res.json('ok', true))
  })
  const send = (url: string, body: unknown) =>
    app.inject({ method: 'POST', url, payload: body as object, headers: { 'content-type': 'application/json' } })
  /** A chain `levels` lazy levels deep under a field (`{ next: { next: {} } }` is 2). */
  const chain = (levels: number, last: Link = {}): Link => {
    let c = last
    for (let i = 1; i < levels; i++) c = { next: c }
    return c
  }

  t.test('two lazy fields and one lazy type at two places each nest to their own max_depth', async (t) => {
    const r = await send('/pair', { a: chain(3), b: chain(3), c: chain(3) })
    t.equal(r.statusCode, 200)
    t.same(r.json(), { ok: true })
    const deep = await send('/pair', { a: chain(3), b: chain(4), c: chain(3) })
    t.equal(deep.statusCode, 400)
    t.same(deep.json().errors, [
      { field: 'b/next/next/next', code: 'Depth', message: 'next is nested deeper than 3 levels' },
    ])
  })

  t.test('a refinement that throws deep in the recursion leaves no level counted for later bodies', async (t) => {
    const bad = await send('/link', { next: { next: { next: { boom: true } } } })
    t.equal(bad.statusCode, 500)
    t.equal(bad.json().error, 'internal_error')
    const r = await send('/link', { next: chain(3) })
    t.equal(r.statusCode, 200)
    t.same(r.json(), { ok: true })
  })

  t.test('requests in flight together each count their own levels', async (t) => {
    const all = await Promise.all([1, 2, 3, 4].map(() => send('/pair', { a: chain(3), b: chain(3), c: chain(3) })))
    t.same(
      all.map((r) => r.statusCode),
      [200, 200, 200, 200],
    )
  })
})

t.test('field.lazy: a value nested deeper than the stack allows answers 400 Depth, never 500', async (t) => {
  // Each lazy level costs more stack than a comment thread's (test/helpers/deep-tree.ts).
  const Body = schema({ tree: Tree })
  /** The path of the node `levels` below the top one (`tree/kids/a/0/kids/a/0...`). */
  const node_at = (levels: number): string => ['tree', ...Array.from({ length: levels }, () => 'kids/a/0')].join('/')

  const app = build(t, (app) => {
    app.post('/trees', { body: Body }, (_req, res) => void res.json('ok', true))
  })
  const post = (body: string) =>
    app.inject({ method: 'POST', url: '/trees', payload: body, headers: { 'content-type': 'application/json' } })

  t.test('a shallow tree passes', async (t) => {
    const r = await post(tree_text(50))
    t.equal(r.statusCode, 200)
    t.same(r.json(), { ok: true })
  })

  t.test('with little stack left when validation starts, a tree that fits otherwise fails with Depth', async (t) => {
    const value = JSON.parse(tree_text(300)) as unknown
    t.equal(Body.validate(value).ok, true)
    /** Validates `value` `frames` calls down, the stack already mostly used by the caller (a deep middleware chain). */
    const down = (frames: number): unknown => (frames === 0 ? Body.validate(value) : [down(frames - 1)][0])
    // The deepest start from which validation still returns: found by going down 100 calls more each time until the
    // stack runs out in `down` itself, so at most 100 calls' worth of stack is left to validate 300 levels with.
    let frames = 100
    let r: unknown
    for (;;) {
      try {
        r = down(frames)
      } catch {
        break
      }
      frames += 100
    }
    const refused = r as { ok: boolean; errors?: { code: string }[] }
    t.equal(refused.ok, false)
    t.same(
      refused.errors?.map((e) => e.code),
      ['Depth'],
    )
  })

  t.test(
    "a refinement's own RangeError, even with V8's message, and its own endless recursion answer 500",
    async (t) => {
      interface Chain {
        what?: string
        next?: Chain
      }
      const endless = (n: number): number => endless(n + 1) + 1
      const Chain: Type<Chain, true> = schema({
        what: field.string().check((w) => {
          if (w === 'fake') throw new RangeError('Maximum call stack size exceeded')
          if (w === 'length') return new Array(-1).length === 0
          if (w === 'endless') return endless(0) > 0
          return true
        }, 'never'),
        next: field.lazy(() => Chain, { name: 'Chain' }),
      })
      const chains = build(t, (app) => app.post('/chains', { body: Chain }, (_req, res) => void res.json('ok', true)))
      for (const what of ['fake', 'length', 'endless']) {
        const r = await chains.inject({
          method: 'POST',
          url: '/chains',
          payload: { next: { next: { what } } },
          headers: { 'content-type': 'application/json' },
        })
        t.equal(r.statusCode, 500, what)
        t.equal(r.json().error, 'internal_error', what)
      }
    },
  )

  for (const levels of [2000, 5000, 20000]) {
    t.test(
      `a tree ${levels} levels deep answers 400 validation_failed with Depth, and the server goes on`,
      async (t) => {
        const r = await post(tree_text(levels))
        t.equal(r.statusCode, 400)
        const body = JSON.parse(r.body) as { error: string; errors: { field: string; code: string; message: string }[] }
        t.equal(body.error, 'validation_failed')
        t.equal(body.errors.length, 1)
        const e = body.errors[0]!
        t.equal(e.code, 'Depth')
        t.match(e.message, /^kids value item is nested deeper than \d+ levels$/)
        const n = Number(/(\d+) levels$/.exec(e.message)?.[1])
        // As for max_depth: the path names the first value that could not be checked, n lazy levels down.
        t.ok(n > 0 && n < levels && e.field === node_at(n + 1), 'the path names the node below the n levels counted')
        t.equal((await post(tree_text(3))).statusCode, 200)
      },
    )
  }
})
