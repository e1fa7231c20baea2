// The entry `fw/middleware`: context middleware (`auth`, `security`) and the App-ready helpers and presets (`app`).
export * as auth from './auth/index.js'
export * as security from './security/index.js'
export * as app from './app/index.js'
