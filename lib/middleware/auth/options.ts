// Checks of authentication options at creation, so a misconfiguration fails at startup with FW_ERR_AUTH_BAD_OPTION.
import { OptionChecks } from '../../options.js'
import { ERR_AUTH_BAD_OPTION } from './errors.js'

/** The option checkers of the authentication middleware: they throw `FW_ERR_AUTH_BAD_OPTION`. */
export const check = new OptionChecks(ERR_AUTH_BAD_OPTION)
