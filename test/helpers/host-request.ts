// A host request as the Request facade reads it (what a Fastify request gives), for tests that build the facade
// without a server.
import type { HostRequest } from '../../lib/request.js'

/** A GET of `/` with no headers, parameters, query or body, from `127.0.0.1`, with `fields` over it. */
export function host_request<F extends Partial<HostRequest>>(fields?: F): HostRequest & F {
  return {
    id: '1',
    method: 'GET',
    url: '/',
    headers: {},
    params: {},
    query: {},
    body: undefined,
    ip: '127.0.0.1',
    ...fields,
  } as HostRequest & F
}
