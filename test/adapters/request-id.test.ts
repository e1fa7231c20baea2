import t from 'tap'
import { request_id, sequential_ids, uuid } from '../../adapters/request-lines.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

t.test('request_id', async (t) => {
  t.test('keeps a well-formed x-request-id', async (t) => {
    for (const id of ['abc-123', 'a', 'A.b_c:d-9', 'x'.repeat(128)])
      t.equal(request_id({ headers: { 'x-request-id': id } }), id)
  })

  t.test('makes a new UUID for a missing, too long, repeated or ill-formed one', async (t) => {
    const bad = [undefined, '', 'x'.repeat(129), 'a b', 'a\r\nSet-Cookie: x=1', 'a\nb', '<script>', 'ä', ['a', 'b']]
    for (const id of bad) t.match(request_id({ headers: { 'x-request-id': id } }), UUID, JSON.stringify(id))
  })
})

t.test('uuid', async (t) => {
  t.test('draws version 4 UUIDs, each once, across refills of its random pool', async (t) => {
    const ids = Array.from({ length: 1000 }, () => uuid())
    t.equal(ids.filter((id) => !UUID.test(id)).length, 0)
    t.equal(new Set(ids).size, ids.length)
  })

  t.test('gives every position but the version and variant all 16 hex digits', async (t) => {
    const seen = Array.from({ length: 36 }, () => new Set<string>())
    for (let n = 0; n < 2000; n++) [...uuid()].forEach((c, i) => seen[i]!.add(c))
    const random = seen.filter((_, i) => ![8, 13, 14, 18, 19, 23].includes(i))
    t.same(
      random.map((s) => s.size),
      random.map(() => 16),
    )
    t.same([...seen[14]!], ['4'])
    t.same([...seen[19]!].sort(), ['8', '9', 'a', 'b'])
  })
})

t.test('sequential_ids', async (t) => {
  t.test('keeps a well-formed x-request-id and numbers the others per app', async (t) => {
    const ids = sequential_ids()
    t.same(
      [
        ids({ headers: {} }),
        ids({ headers: { 'x-request-id': 'trace-1' } }),
        ids({ headers: { 'x-request-id': 'a b' } }),
      ],
      ['req-1', 'trace-1', 'req-2'],
    )
    t.equal(sequential_ids()({ headers: {} }), 'req-1')
  })
})
