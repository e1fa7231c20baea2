// Demo `log`: fw/log in a running App: lines carrying the request id, structured fields, a module context, the level
// and format switched at run time, and a failing handler logged with its stack.
import { httpCode } from '../lib/errors.js'
import type { Response, Router } from '../index.js'
import * as log from '../lib/log/index.js'
import { field, schema } from '../lib/validation/index.js'
import type { Demo } from './demo.js'

const INVALID_BODY = httpCode('invalid_body')

/** Answers the logger's current level and format. */
function settings(res: Response): void {
  res.json('ok', true, 'level', log.level(), 'format', log.global().format())
}

/**
 * Registers the demo's routes on `r`:
 * - `GET /orders/{id}`: logs at debug and info with `mod=orders` and the order id, answers `{ok, id, rid}`;
 * - `GET /logging`: the current level and format;
 * - `PUT /logging` with `{"level": "debug"}` and/or `{"format": "json"}`: changes them (any name `parse_level` or
 *   `parse_format` reads; unknown text gives `info` and `kv`), 400 `invalid_body` when neither is a string;
 * - `GET /fail`: throws, so the App answers 500 and logs the error with its stack and the request id.
 */
export function setup_log(r: Router): void {
  const orders = log.logger('orders')
  r.get('/orders/{id}', (req, res) => {
    const id = req.param('id')
    log.set_context({ ...log.context(), module: 'orders' })
    orders.debug('looking up order {}', id)
    orders.logf(log.LogLevel.Info, 'order served', 'order', id, 'client', req.ip())
    res.json('ok', true, 'id', id, 'rid', req.id())
  })

  r.get('/logging', (_req, res) => settings(res))

  // The handler answers 400 invalid_body itself (the demo's contract), so the schema documents only.
  const logging = {
    summary: 'Switch the log level and format',
    body: schema({
      level: field.string().describe('trace ... critical, off'),
      format: field.string().describe('kv, json'),
    }),
    validate: false,
    responses: { 200: { description: 'The settings now in force' }, 400: { description: 'invalid_body' } },
  } as const
  r.put('/logging', logging, (req, res) => {
    const level = req.json().value<unknown>('level', undefined)
    const format = req.json().value<unknown>('format', undefined)
    if (typeof level !== 'string' && typeof format !== 'string') {
      res.error(400, INVALID_BODY, 'Expected a JSON object with "level" and/or "format" strings')
      return
    }
    if (typeof level === 'string') log.set_level(log.parse_level(level))
    if (typeof format === 'string') log.set_format(log.parse_format(format))
    log.info('logging changed to level {} format {}', log.level(), log.global().format())
    settings(res)
  })

  r.get('/fail', () => {
    throw new Error('the demo failing on purpose')
  })
}

export const demo: Demo = {
  name: 'log',
  description: 'GET /orders/{id} logs with rid and fields; PUT /logging switches level/format; GET /fail logs a stack',
  setup(_app, r) {
    setup_log(r)
  },
}
