// The conduit API suite on SQLite (see suite.ts).
import t from 'tap'
import { conduit_suite } from './suite.js'

t.test('conduit on SQLite', async (t) => conduit_suite(t, 'sqlite'))
