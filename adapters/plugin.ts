// Embedding: mount an fw App's routes and middleware into an existing Fastify app, encapsulated under a prefix.
import type { FastifyPluginAsync } from 'fastify'
import type { AppCore } from '../lib/app.js'
import { mount } from './mount.js'
import { embedded_id, request_id, sequential_ids } from './request-id.js'

/** Options of the fw plugin. */
export interface FwPluginOptions {
  /** The fw App whose routes to mount (it must not also listen on its own). */
  app: AppCore
}

/**
 * A Fastify plugin that mounts an fw App. It is encapsulated: the host's other routes, parsers and error handler are
 * untouched, while the host's hooks and decorators still apply to the fw routes.
 * @example
 * host.register(fw_plugin, { app, prefix: '/fw' })
 */
export const fw_plugin: FastifyPluginAsync<FwPluginOptions> = async (instance, options) => {
  const app = options.app
  // The host's genReqId and requestIdHeader made the id: fw's routes keep a well-formed incoming x-request-id, as the
  // standalone App does, and never echo a malformed one the host took as it came.
  const draw = app.config.request_id ? request_id : sequential_ids()
  instance.addHook('onRequest', (freq, _reply, done) => {
    freq.id = embedded_id(freq, draw)
    done()
  })
  await mount(instance, app)
  instance.addHook('onClose', async () => app.run_closers())
}

export default fw_plugin
