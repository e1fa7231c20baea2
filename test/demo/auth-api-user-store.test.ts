// The users of the reference authentication API: reservations, dense ids, lookups.
import t from 'tap'
import { public_user, UserStore } from '../../demo/auth-api/index.js'

t.test('UserStore', async (t) => {
  t.test('lets one registration at a time reserve an email', async (t) => {
    const users = new UserStore()
    t.equal(users.reserve('ada@example.com'), true)
    t.equal(users.reserve('ada@example.com'), false)
    users.release('ada@example.com')
    t.equal(users.reserve('ada@example.com'), true)
    users.create('ada@example.com', 'pw-record', 'user')
    t.equal(users.reserve('ada@example.com'), false, 'a created user keeps the email')
    users.release('ada@example.com')
    t.equal(users.reserve('ada@example.com'), false, 'releasing after creation changes nothing')
  })

  t.test('numbers users 1, 2, 3 and finds them by email and id', async (t) => {
    const users = new UserStore()
    const ada = users.create('ada@example.com', 'a', 'user')
    const root = users.create('root@example.com', 'b', 'admin')
    t.same([ada.id, root.id], [1, 2])
    t.equal(users.by_email('root@example.com'), root)
    t.equal(users.by_id(1), ada)
    t.equal(users.by_id(3), undefined)
    t.equal(users.by_email('ADA@example.com'), undefined, 'lookups take the normalised email')
    t.same(users.list(), [ada, root])
    t.ok(Object.isFrozen(ada))
  })
})

t.test('public_user', async (t) => {
  t.test('leaves the password out', async (t) => {
    t.same(public_user({ id: 1, email: 'ada@example.com', password: 'secret', role: 'admin' }), {
      id: 1,
      email: 'ada@example.com',
      role: 'admin',
    })
  })
})
