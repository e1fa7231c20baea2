// Checks of the Redis stores' options at creation, so a misconfiguration fails at startup with a coded error.
import { OptionChecks } from '../options.js'
import { ERR_REDIS_BAD_OPTION } from './errors.js'

/** The option checkers of fw/redis: they throw `FW_ERR_REDIS_BAD_OPTION`. */
export const check = new OptionChecks(ERR_REDIS_BAD_OPTION)
