// The conduit's storage and secret options: where the URL comes from, and the coded errors for ones it cannot use.
import t from 'tap'
import { Tokens } from '../../../demo/conduit/auth.js'
import { open_db, storage_url } from '../../../demo/conduit/index.js'

t.test('storage_url', async (t) => {
  t.equal(storage_url([], {}), 'sqlite:./.fw/conduit.sqlite', 'the default SQLite file')
  t.equal(storage_url([], { DATABASE_URL: 'postgres://h/db' }), 'postgres://h/db', 'DATABASE_URL')
  t.equal(
    storage_url(['conduit', '--database', 'sqlite:/tmp/x.sqlite'], { DATABASE_URL: 'postgres://h/db' }),
    'sqlite:/tmp/x.sqlite',
    '--database wins over DATABASE_URL',
  )
})

t.test('open_db and Tokens refuse what they cannot use with FW_ERR_CONDUIT_BAD_OPTION', async (t) => {
  t.throws(() => open_db('mysql://root:hunter2@h/db'), {
    code: 'FW_ERR_CONDUIT_BAD_OPTION',
    message: 'conduit: database must be sqlite:<path> or postgres://...; got "mysql://***@h/db"',
  })
  t.throws(() => open_db('sqlite:'), { code: 'FW_ERR_CONDUIT_BAD_OPTION' })
  t.throws(() => new Tokens('short', 60), {
    code: 'FW_ERR_CONDUIT_BAD_OPTION',
    message: /^conduit: jwt_secret must be at least 32 characters; got /,
  })
  t.doesNotThrow(() => new Tokens('x'.repeat(32), 60))
})
