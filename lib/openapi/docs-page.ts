// The interactive docs page: Swagger UI from the swagger-ui-dist package, served by the app itself (no CDN).
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { Handler } from '../compose.js'

const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png'])

/** The folder of the installed swagger-ui-dist. */
function assets_dir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
}

function escape_html(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** The page at `docs`, loading its assets from `docs/...` and the document from `document_path`; no inline script, so a strict CSP allows it. */
export function docs_handlers(docs: string, document_path: string, title: string): { page: Handler; asset: Handler; init: Handler } {
  const dir = assets_dir()
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape_html(title)}</title>
<link rel="stylesheet" href="${docs}/swagger-ui.css"><link rel="icon" href="${docs}/favicon-32x32.png"></head>
<body><div id="swagger-ui"></div>
<script src="${docs}/swagger-ui-bundle.js"></script>
<script src="${docs}/init.js"></script></body></html>
`
  const init = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(document_path)}, dom_id: '#swagger-ui', deepLinking: true });\n`
  return {
    page: (_req, res) => res.header('Content-Type', 'text/html; charset=utf-8').send(html),
    init: (_req, res) => res.header('Content-Type', 'text/javascript; charset=utf-8').send(init),
    asset: (req, res) => {
      const name = req.param('file')
      if (!ASSETS.has(name)) return void res.error(404, 'not_found', 'File not found')
      res.header('Cache-Control', 'public, max-age=86400').file(join(dir, name))
    },
  }
}
