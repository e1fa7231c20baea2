// Every demo by name, for `npm run demo -- <name>` and the showcase.
import { demo as api_key } from './api-key.js'
import type { Demo } from './demo.js'
import { demo as auth_api } from './auth-api.js'
import { demo as cache } from './cache.js'
import { demo as conduit } from './conduit.js'
import { demo as files } from './files.js'
import { demo as chat } from './chat.js'
import { demo as http_api } from './http-api.js'
import { demo as jwt } from './jwt.js'
import { demo as log } from './log.js'
import { demo as rbac } from './rbac.js'
import { demo as security } from './security.js'
import { demo as session } from './session.js'
import { demo as showcase_page } from './showcase-page.js'
import { demo as sse } from './sse.js'

export const demos: Record<string, Demo> = {
  [http_api.name]: http_api,
  [api_key.name]: api_key,
  [jwt.name]: jwt,
  [rbac.name]: rbac,
  [session.name]: session,
  [auth_api.name]: auth_api,
  [showcase_page.name]: showcase_page,
  [security.name]: security,
  [cache.name]: cache,
  [log.name]: log,
  [files.name]: files,
  [sse.name]: sse,
  [chat.name]: chat,
  [conduit.name]: conduit,
}
