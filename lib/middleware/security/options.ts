// Checks of middleware options at creation, so a misconfiguration fails at startup with a coded error.
import { OptionChecks } from '../../options.js'
import { ERR_SECURITY_BAD_OPTION } from './errors.js'

/** The option checkers of the security middleware: they throw `FW_ERR_SECURITY_BAD_OPTION`. */
export const check = new OptionChecks(ERR_SECURITY_BAD_OPTION)
