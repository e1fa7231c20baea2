// fw.middleware.app: App-ready helpers and development presets.
export { adapt_ctx } from '../../compose.js'
