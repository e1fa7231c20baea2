// The coded errors and HTTP codes of fw/observability.
import { httpCode } from '../errors.js'
import { define_bad_option } from '../options.js'

/** 503 while load shedding refuses new requests. */
export const CODE_OVERLOADED = httpCode('overloaded')
/** 503 from the readiness probe: a check failed, or the app is draining. */
export const CODE_NOT_READY = httpCode('not_ready')

/** A bad option of a health probe or a load monitor. */
export const ERR_OBSERVABILITY_BAD_OPTION = define_bad_option('OBSERVABILITY')
