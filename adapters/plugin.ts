// Embedding: mount an fw App's routes and middleware into an existing Fastify app, encapsulated under a prefix.
import type { FastifyPluginAsync } from 'fastify'
import type { AppCore } from '../lib/app.js'
import { mount } from './mount.js'

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
  await mount(instance, options.app)
  instance.addHook('onClose', async () => options.app.run_closers())
}

export default fw_plugin
