// The package entry `fw`: the App (the Fastify adapter in adapters/) joined to the Fastify-independent core in lib/,
// so lib/ never imports adapters/.
export { App } from './adapters/app.js'
export * from './lib/index.js'
