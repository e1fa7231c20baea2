// The conduit API suite on PostgreSQL (see suite.ts), on a private server started for this file.
import t from 'tap'
import { start_postgres } from '../../helpers/postgres-server.js'
import { conduit_suite } from './suite.js'

t.test('conduit on PostgreSQL', async (t) => conduit_suite(t, 'postgres', await start_postgres(t)))
