// Every demo by name, for `npm run demo -- <name>` and the showcase.
import type { Demo } from './demo.js'
import { demo as http_api } from './http-api.js'

export const demos: Record<string, Demo> = {
  [http_api.name]: http_api,
}
