// Client address: the socket peer, or the forwarded client when the peer is one of the operator's proxies
// (trust_proxy).
import { isIP } from 'node:net'
import proxyaddr from '@fastify/proxy-addr'
import type { FastifyInstance } from 'fastify'
import type { HostRequest, IpResolver } from '../lib/request.js'

type WithSocket = HostRequest & { readonly socket?: { remoteAddress?: string | undefined } }

/**
 * Builds the resolver for `req.ip()`. Fastify's own `trustProxy` already applies `X-Forwarded-For`; this adds
 * `X-Real-IP`, honoured only when there is no `X-Forwarded-For` and the socket peer is trusted.
 */
export function ip_resolver(trust_proxy: string[] | boolean): IpResolver {
  if (trust_proxy === false || (Array.isArray(trust_proxy) && trust_proxy.length === 0)) return (req) => req.ip
  const trusted = trust_proxy === true ? () => true : proxyaddr.compile(trust_proxy)
  return (req) => {
    const real = req.headers['x-real-ip']
    if (typeof real !== 'string' || req.headers['x-forwarded-for'] !== undefined) return req.ip
    const peer = (req as WithSocket).socket?.remoteAddress
    const ip = real.trim()
    return peer !== undefined && trusted(peer, 0) && isIP(ip) !== 0 ? ip : req.ip
  }
}

/**
 * `resolve`, read once per request on `instance` when its server speaks HTTP/2. A closed HTTP/2 stream no longer reaches
 * its session's socket, so an address read after the answer (the access line's) was null while `req.ip()` during the
 * handler was right: the address is resolved when the request arrives, and that one value serves both.
 */
export function ip_of_request(instance: FastifyInstance, resolve: IpResolver): IpResolver {
  if (instance.initialConfig.http2 !== true) return resolve
  const arrived = new WeakMap<HostRequest, string>()
  instance.addHook('onRequest', (freq, _reply, done) => {
    arrived.set(freq, resolve(freq))
    done()
  })
  return (req) => arrived.get(req) ?? resolve(req)
}
