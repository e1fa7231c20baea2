// The coded errors and HTTP codes of fw/observability.
import { defineError, httpCode } from '../errors.js'

/** 503 while load shedding refuses new requests. */
export const CODE_OVERLOADED = httpCode('overloaded')
/** 503 from the readiness probe: a check failed, or the app is draining. */
export const CODE_NOT_READY = httpCode('not_ready')

export const ERR_OBSERVABILITY_BAD_OPTION = defineError(
  'FW_ERR_OBSERVABILITY_BAD_OPTION',
  (owner: string, name: string, value: unknown) => `${owner}: option ${name} is not valid; got ${typeof value === 'function' ? 'a function' : JSON.stringify(value) ?? String(value)}`,
)
