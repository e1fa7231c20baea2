import t from 'tap'
import { CREATED_KEY, SIGNED_IN_KEY, Session, new_session_id } from '../../../../lib/middleware/auth/session-state.js'
import { throws_coded } from './build.js'

t.test('new_session_id', async (t) => {
  t.test('makes 192-bit base64url ids that differ', async (t) => {
    const ids = new Set(Array.from({ length: 100 }, new_session_id))
    t.equal(ids.size, 100)
    for (const id of ids) t.match(id, /^[A-Za-z0-9_-]{32}$/)
  })
})

t.test('Session', async (t) => {
  t.test('reads, sets and deletes string values, and tracks changes', async (t) => {
    const s = new Session({ id: 'id-1', data: { a: '1' } }, false)
    t.equal(s.get('a'), '1')
    t.equal(s.get('b'), undefined)
    t.equal(s.changed, false)
    s.set('a', '1')
    t.equal(s.changed, false, 'setting the same value is no change')
    s.set('b', '2')
    t.equal(s.changed, true)
    t.same(s.data, { a: '1', b: '2' })
    t.equal(s.delete('a'), true)
    t.equal(s.delete('a'), false)
    t.same(s.data, { b: '2' })
  })

  t.test('counts a delete as a change only when there was a value', async (t) => {
    const s = new Session({ id: 'id-1', data: {} }, false)
    s.delete('x')
    t.equal(s.changed, false)
  })

  t.test('keeps keys such as __proto__ as plain values', async (t) => {
    const s = new Session({ id: 'id-1', data: {} }, true)
    s.set('__proto__', 'x')
    t.equal(s.get('__proto__'), 'x')
    t.equal(Object.getPrototypeOf(s.data), Object.prototype)
    t.equal(Object.hasOwn(s.data, '__proto__'), true)
  })

  t.test('regenerates a new id and keeps the values', async (t) => {
    const s = new Session({ id: 'old', data: { user: 'ada' } }, false)
    s.regenerate()
    t.not(s.id, 'old')
    t.equal(s.loaded_id, 'old')
    t.equal(s.get('user'), 'ada')
    t.equal(s.changed, true)
  })

  t.test('hides the reserved creation-time key: not in data, get or delete, and set refuses it', async (t) => {
    t.equal(CREATED_KEY, 'fw.created_at')
    const s = new Session({ id: 'id-1', data: { a: '1', [CREATED_KEY]: '1000' } }, false)
    t.same(s.data, { a: '1' })
    t.equal(s.get(CREATED_KEY), undefined)
    t.equal(s.delete(CREATED_KEY), false, 'nothing to delete: the key is not a value')
    t.equal(s.changed, false)
    throws_coded(
      t,
      () => s.set(CREATED_KEY, '5'),
      'FW_ERR_AUTH_RESERVED_SESSION_KEY',
      /^session: the key fw\.created_at is reserved for the session's creation time; use another key$/,
    )
    t.equal(s.changed, false, 'a refused set changes nothing')
    t.same(s.data, { a: '1' })
  })

  t.test("refuses a set of the signed-in user's key, which only sign_in writes", async (t) => {
    // An app passing a user-chosen key to set() must not let that user write an identity with any roles.
    t.equal(SIGNED_IN_KEY, 'fw.identity')
    const s = new Session({ id: 'id-1', data: { a: '1' } }, false)
    throws_coded(
      t,
      () => s.set(SIGNED_IN_KEY, JSON.stringify({ id: 'root', roles: ['admin'], perms: [] })),
      'FW_ERR_AUTH_RESERVED_SESSION_KEY',
      /^session: the key fw\.identity is reserved for the signed-in user \(sign_in\); use another key$/,
    )
    t.same([s.data, s.changed], [{ a: '1' }, false], 'a refused set changes nothing')
  })

  t.test('forgets its values on destroy and refuses set and regenerate afterwards', async (t) => {
    const s = new Session({ id: 'id-1', data: { a: '1' } }, false)
    s.destroy()
    t.equal(s.destroyed, true)
    t.equal(s.get('a'), undefined)
    throws_coded(
      t,
      () => s.set('a', '2'),
      'FW_ERR_AUTH_SESSION_DESTROYED',
      /^session: cannot set a value in a session after destroy\(\) in the same request$/,
    )
    throws_coded(
      t,
      () => s.regenerate(),
      'FW_ERR_AUTH_SESSION_DESTROYED',
      /^session: cannot regenerate a session after destroy\(\)/,
    )
  })
})
