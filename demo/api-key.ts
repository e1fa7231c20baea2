// Demo `api-key`: the spec's API key routes; the key comes from header `x-api-key` or query `api_key`.
import type { Router } from '../index.js'
import { api_key_dev } from '../lib/middleware/app/index.js'
import { ApiKey } from '../lib/middleware/auth/index.js'
import { dev_secret, type Demo } from './demo.js'

/**
 * Registers `GET /secure` and `GET /api/admin/status` behind the API key (default `FW_API_KEY`, else a development
 * key).
 * @example
 * setup_api_key(app, { key: 'k-123' })
 */
export function setup_api_key(r: Router, { key }: { key?: string } = {}): void {
  const protect = api_key_dev(key ?? dev_secret('FW_API_KEY', 'dev-api-key-change-me'))
  // Scoped to the demo's own paths, so the showcase's other demos are not behind the key.
  r.use('/secure', protect)
  r.use('/api/admin', protect)
  const key_size = (value: ApiKey | undefined): number => value?.value.length ?? 0
  r.get('/secure', (req, res) => res.json('ok', true, 'key_size', key_size(req.state(ApiKey))))
  r.get('/api/admin/status', (req, res) => res.json('ok', true, 'admin', true, 'key_size', key_size(req.state(ApiKey))))
}

export const demo: Demo = {
  name: 'api-key',
  description: 'GET /secure and /api/admin/status behind an API key (header x-api-key or query api_key)',
  setup(_app, r) {
    setup_api_key(r)
  },
}
