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
 * The origins "Try it out" may call: the page's own and each absolute server's; a server whose host is a template
 * (`https://{tenant}.example.com`) allows its whole scheme, as the host is only known once the reader fills it in.
 */
function connect_sources(servers: readonly { readonly url: string }[]): string {
  const sources = new Set(["'self'"])
  for (const { url } of servers) {
    const m = /^(https?):\/\/([^/?#]*)/i.exec(url)
    if (m === null) continue // relative: the page's own origin
    if (m[2]!.includes('{')) sources.add(`${m[1]!.toLowerCase()}:`)
    else if (URL.canParse(m[0])) {
      // Only a plain origin goes into the header: a `;` or space in a host would end the directive.
      const origin = new URL(m[0]).origin
      if (/^https?:\/\/[A-Za-z0-9.\-[\]:]+$/.test(origin)) sources.add(origin)
    }
  }
  return [...sources].join(' ')
}

/**
 * The page's Content-Security-Policy: its own script files only (no inline script, no CDN), inline styles (Swagger UI
 * sets them), images the descriptions and answers show (`data:`, `blob:`, https), and framing by its own origin only.
 */
function page_csp(servers: readonly { readonly url: string }[]): string {
  return (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob: https:; " +
    `font-src 'self' data:; media-src 'self' blob:; connect-src ${connect_sources(servers)}; object-src 'none'; ` +
    "form-action 'self'; frame-ancestors 'self'; base-uri 'none'"
  )
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
  servers: readonly { readonly url: string }[] = [],
): { page: Handler; asset: Handler; init: Handler } {
  const dir = assets_dir()
  const csp = page_csp(servers)
  const html = page_html(title, `${posix.basename(docs)}/`, relative(posix.dirname(docs), document_path))
  const html_in_folder = page_html(title, '', relative(docs, document_path))
  // The document URL is read from the page, so one static script serves both forms and needs no inline code.
  const init =
    "window.ui = SwaggerUIBundle({ url: new URL(document.getElementById('swagger-ui').dataset.spec, document.baseURI).href, dom_id: '#swagger-ui', deepLinking: true });\n"
  return {
    page: (req, res) =>
      res
        .header('Content-Type', 'text/html; charset=utf-8')
        .header('Content-Security-Policy', csp)
        .header('X-Content-Type-Options', 'nosniff')
        .send(req.path().endsWith('/') ? html_in_folder : html),
    init: (_req, res) =>
      res
        .header('Content-Type', 'text/javascript; charset=utf-8')
        .header('X-Content-Type-Options', 'nosniff')
        .send(init),
    asset: (req, res) => {
      const name = req.param('file')
      if (!ASSETS.has(name)) return void res.error(404, 'not_found', 'File not found')
      res
        .header('Cache-Control', 'public, max-age=86400')
        .header('X-Content-Type-Options', 'nosniff')
        .file(join(dir, name))
    },
  }
}
