// Demo `http-api`: the spec's example application routes, a route group, and a static folder behind a wildcard.
import { fileURLToPath } from 'node:url'
import { httpCode } from '../lib/errors.js'
import { json } from '../index.js'
import { field, schema } from '../lib/validation/index.js'
import type { Demo } from './demo.js'

const PUBLIC = fileURLToPath(new URL('./public/', import.meta.url))

/** The spec's codes of the example routes: 404 for user id `0`, 400 for a body that is not an object or has no name. */
const USER_NOT_FOUND = httpCode('user_not_found')
const INVALID_BODY = httpCode('invalid_body')
const VALIDATION_FAILED = httpCode('validation_failed')

const UserId = schema({ id: field.string().required().describe('user id; 0 is never found') })
const Listing = schema({ page: field.string().default('1'), limit: field.string().default('20') })
const NewUser = schema({ name: field.string().required('name is required').trim() })
const Ok = schema({ ok: field.literal(true).required() })

export const demo: Demo = {
  name: 'http-api',
  description: 'users CRUD example, /api group, static files under /static',
  setup(_app, r) {
    r.get('/health', { summary: 'Liveness', responses: { 200: Ok } }, (_req, res) => res.json('ok', true))

    r.get('/users', { query: Listing, summary: 'List users' }, (req, res) => {
      const page = req.query_value('page', '1')
      const limit = req.query_value('limit', '20')
      res.json(
        'ok',
        true,
        'page',
        page,
        'limit',
        limit,
        'data',
        json.array(json.o('id', 1, 'name', 'Ada'), json.o('id', 2, 'name', 'Linus')),
      )
    })

    r.get(
      '/users/{id}',
      { params: UserId, summary: 'One user', responses: { 200: Ok, 404: { description: 'user_not_found' } } },
      (req, res) => {
        const id = req.param('id')
        if (id === '0') {
          res.error(404, USER_NOT_FOUND, 'User not found')
          return
        }
        res.json('ok', true, 'data', json.o('id', id))
      },
    )

    // Documented but validated by the handler: the spec answers a body that is not an object with `invalid_body`.
    r.post(
      '/users',
      { body: NewUser, validate: false, summary: 'Create a user', responses: { 201: Ok } },
      (req, res) => {
        const body = req.json()
        if (!body.is_object()) {
          res.error(400, INVALID_BODY, 'Expected JSON object')
          return
        }
        const name = body.value('name', '')
        if (name.trim() === '') {
          res.error(400, VALIDATION_FAILED, 'name is required')
          return
        }
        res.status(201).json('ok', true, 'message', 'User created', 'name', name)
      },
    )

    r.del(
      '/users/{id}',
      { params: UserId, summary: 'Delete a user', responses: { 200: Ok, 404: { description: 'user_not_found' } } },
      (req, res) => {
        const id = req.param('id')
        if (id === '0') {
          res.error(404, USER_NOT_FOUND, 'User not found')
          return
        }
        res.json('ok', true, 'message', 'User deleted', 'id', id)
      },
    )

    r.group('/api', (api) => {
      api.get('/health', { responses: { 200: Ok } }, (_req, res) => res.json('ok', true))
      api.get('/users', { responses: { 200: Ok } }, (_req, res) => res.json('ok', true, 'data', json.array()))
      api.group('/admin', (admin) =>
        admin.get('/stats', { responses: { 200: Ok } }, (_req, res) => res.json('ok', true, 'users', 2)),
      )
    })

    // The spec's wildcard example: a handler sending file(dir + path) with a Cache-Control header.
    r.get('/static/*', { hide: true }, (req, res) => {
      res.header('Cache-Control', 'public, max-age=300').file(PUBLIC + req.param('*'))
    })
  },
}
