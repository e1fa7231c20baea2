// The interactive docs page: Swagger UI from the swagger-ui-dist package, served by the app itself (no CDN).
import { createRequire } from 'node:module'
import { dirname, join, posix } from 'node:path'
import type { Handler } from '../compose.js'

const ASSETS = new Set([
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'swagger-ui-standalone-preset.js',
  'favicon-32x32.png',
])

/** The folder of the installed swagger-ui-dist. */
function assets_dir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
}

function escape_html(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** The page, with asset URLs relative to `base` and the document at `spec`, both relative to the page's own URL. */
function page_html(title: string, base: string, spec: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape_html(title)}</title>
<link rel="stylesheet" href="${escape_html(base)}swagger-ui.css"><link rel="icon" href="${escape_html(base)}favicon-32x32.png"></head>
<body><div id="swagger-ui" data-spec="${escape_html(spec)}"></div>
<script src="${escape_html(base)}swagger-ui-bundle.js"></script>
<script src="${escape_html(base)}init.js"></script></body></html>
`
}

/** `target` relative to a page in the folder `from` (`/api`, `/openapi.json` -> `../openapi.json`). */
function relative(from: string, target: string): string {
  const out = posix.relative(from, posix.dirname(target))
  return `${out === '' ? '.' : out}/${posix.basename(target)}`.replace(/^\.\//, '')
}

/**
 * The page at `docs`, loading its assets from `docs/...` and the document from `document_path`; no inline script, so a
 * strict CSP allows it. Every URL in the page is relative to the page itself, so the page still works when the app is
 * mounted under a prefix in a host (`fw/fastify`); the two forms of the page (`/docs` and `/docs/`) each get theirs.
 */
export function docs_handlers(
  docs: string,
  document_path: string,
  title: string,
): { page: Handler; asset: Handler; init: Handler } {
  const dir = assets_dir()
  const html = page_html(title, `${posix.basename(docs)}/`, relative(posix.dirname(docs), document_path))
  const html_in_folder = page_html(title, '', relative(docs, document_path))
  // The document URL is read from the page, so one static script serves both forms and needs no inline code.
  const init =
    "window.ui = SwaggerUIBundle({ url: new URL(document.getElementById('swagger-ui').dataset.spec, document.baseURI).href, dom_id: '#swagger-ui', deepLinking: true });\n"
  return {
    page: (req, res) =>
      res.header('Content-Type', 'text/html; charset=utf-8').send(req.path().endsWith('/') ? html_in_folder : html),
    init: (_req, res) => res.header('Content-Type', 'text/javascript; charset=utf-8').send(init),
    asset: (req, res) => {
      const name = req.param('file')
      if (!ASSETS.has(name)) return void res.error(404, 'not_found', 'File not found')
      res.header('Cache-Control', 'public, max-age=86400').file(join(dir, name))
    },
  }
}
