// fw App serving the HTTP scenarios.
import { App } from '../../lib/index.js'
import type { Middleware } from '../../lib/index.js'
import { announce } from '../servers.js'

const app = new App({ host: '127.0.0.1', request_id: false })
const noop: Middleware = (_req, _res, next) => next()
for (let i = 0; i < 5; i++) app.use('/mw', noop)
app.get('/hello', (_req, res) => void res.json({ hello: 'world' }))
app.get('/users/{id}', (req, res) => void res.json({ id: req.param('id'), fields: req.query_value('fields', '') }))
app.post('/echo', (req, res) => void res.json(req.json().raw))
app.get('/mw/hello', (_req, res) => void res.json({ hello: 'world' }))
announce(await app.listen(0))
