// Express 5 serving the HTTP scenarios.
import express from 'express'
import { announce } from '../servers.js'

const app = express()
app.disable('x-powered-by')
app.get('/hello', (_req, res) => void res.json({ hello: 'world' }))
app.get('/users/:id', (req, res) => void res.json({ id: req.params.id, fields: req.query.fields ?? '' }))
app.post('/echo', express.json(), (req, res) => void res.json(req.body))
const mw = express.Router()
for (let i = 0; i < 5; i++) mw.use((_req, _res, next) => next())
mw.get('/hello', (_req, res) => void res.json({ hello: 'world' }))
app.use('/mw', mw)
const server = app.listen(0, '127.0.0.1', () => announce((server.address() as { port: number }).port))
