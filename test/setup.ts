// tap's `before` script: installs what the suite needs before any test file starts, so a first run on a fresh machine
// spends the install time here rather than inside a test file's timeout.
import { ensure } from './helpers/services.js'

ensure('redis-server')
ensure('chromium')
