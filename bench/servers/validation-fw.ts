// fw App with its defaults validating the benchmark's order body with an fw schema (the bench sets FW_LOG_LEVEL=off).
import { App } from '../../index.js'
import { field, schema } from '../../lib/validation/index.js'

const Order = schema({
  id: field.integer().required().min(1),
  customer: field.string().required().max_length(100),
  email: field.string().required().email(),
  age: field.integer().min(0).max(150),
  active: field.boolean().required(),
  score: field.number().min(0).max(100),
  currency: field.enum(['EUR', 'USD', 'GBP']).required(),
  status: field.enum(['draft', 'placed', 'shipped']).required(),
  note: field.string().max_length(500),
  coupon: field.string().max_length(20),
  created_at: field.string().required().date_time(),
  priority: field.integer().min(0).max(5),
  address: field
    .object({
      street: field.string().required(),
      city: field.string().required(),
      zip: field.string().required().max_length(10),
      country: field.string().required().length(2, 2),
      geo: field
        .object({ lat: field.number().required().min(-90).max(90), lng: field.number().required().min(-180).max(180) })
        .required(),
    })
    .required(),
  items: field
    .array(field.object({ sku: field.string().required(), qty: field.integer().required().min(1) }).required())
    .required()
    .max_items(100),
})

const app = new App({ host: '127.0.0.1' })
app.post('/orders', { body: Order }, (req, res) => void res.json({ ok: true, items: req.valid('body').items.length }))
process.stdout.write(`listening ${await app.listen(0)}\n`)
