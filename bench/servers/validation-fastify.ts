// Fastify validating the benchmark's order body with the equivalent JSON Schema, compiled by its Ajv.
import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'

const str = { type: 'string' }
const order = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'customer', 'email', 'active', 'currency', 'status', 'created_at', 'address', 'items'],
  properties: {
    id: { type: 'integer', minimum: 1 },
    customer: { type: 'string', maxLength: 100 },
    email: { type: 'string', format: 'email' },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    active: { type: 'boolean' },
    score: { type: 'number', minimum: 0, maximum: 100 },
    currency: { enum: ['EUR', 'USD', 'GBP'] },
    status: { enum: ['draft', 'placed', 'shipped'] },
    note: { type: 'string', maxLength: 500 },
    coupon: { type: 'string', maxLength: 20 },
    created_at: { type: 'string', format: 'date-time' },
    priority: { type: 'integer', minimum: 0, maximum: 5 },
    address: {
      type: 'object',
      additionalProperties: false,
      required: ['street', 'city', 'zip', 'country', 'geo'],
      properties: {
        street: str,
        city: str,
        zip: { type: 'string', maxLength: 10 },
        country: { type: 'string', minLength: 2, maxLength: 2 },
        geo: {
          type: 'object',
          additionalProperties: false,
          required: ['lat', 'lng'],
          properties: {
            lat: { type: 'number', minimum: -90, maximum: 90 },
            lng: { type: 'number', minimum: -180, maximum: 180 },
          },
        },
      },
    },
    items: {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['sku', 'qty'],
        properties: { sku: str, qty: { type: 'integer', minimum: 1 } },
      },
    },
  },
}

const app = Fastify({ logger: false })
app.post('/orders', { schema: { body: order } }, async (req) => ({
  ok: true,
  items: (req.body as { items: unknown[] }).items.length,
}))
await app.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`listening ${(app.server.address() as AddressInfo).port}\n`)
