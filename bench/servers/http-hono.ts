// Hono on @hono/node-server serving the HTTP scenarios.
import { serve } from '@hono/node-server'
import { Hono } from 'hono'

const app = new Hono()
for (let i = 0; i < 5; i++) app.use('/mw/*', async (_c, next) => next())
app.get('/hello', (c) => c.json({ hello: 'world' }))
app.get('/users/:id', (c) => c.json({ id: c.req.param('id'), fields: c.req.query('fields') ?? '' }))
app.post('/echo', async (c) => c.json(await c.req.json()))
app.get('/mw/hello', (c) => c.json({ hello: 'world' }))
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => process.stdout.write(`listening ${info.port}\n`))
