// The marker of routes that take their bodies as streams: the adapter does not read them before the handler runs.
import { with_route_options, type Middleware } from '../compose.js'

/**
 * Marks the routes it covers as streaming their request bodies: nothing is read before the handler, which takes the
 * body with `req.stream()` or `req.multipart()` (the buffered readers throw `FW_ERR_BODY_CONSUMED` there). The route's
 * body limit still counts the bytes as they arrive. Elsewhere bodies are read whole before the chain runs.
 * @example
 * app.use('/upload', stream_body())
 * app.post('/upload', async (req, res) => res.json('files', (await req.multipart().save()).files.length))
 */
export function stream_body(): Middleware {
  return with_route_options(
    function stream_body(_req, _res, next) {
      return next()
    },
    { stream_body: true },
  )
}
