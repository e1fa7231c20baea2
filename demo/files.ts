// Demo `files`: an upload form, the list of uploaded files and their download, with upload limits.
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stream_body, type App, type Request, type Router } from '../index.js'
import { field, schema } from '../lib/validation/index.js'
import type { Demo } from './demo.js'

/** One stored upload. */
interface Stored {
  id: string
  filename: string
  mime_type: string
  size: number
  path: string
}

/** Options of `setup_files`. */
export interface FilesOptions {
  /** Largest file in bytes (default 1 MiB). */
  max_file_bytes?: number
  /** Most files per upload (default 3). */
  max_files?: number
  /** Most files kept; the oldest go first (default 20). */
  keep?: number
}

const page = (base: string, files: readonly Stored[]): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>fw files</title></head>
<body style="font-family: system-ui; max-width: 40rem; margin: 2rem auto">
<h1>Files</h1>
<form method="post" action="${base}/upload" enctype="multipart/form-data">
  <input type="file" name="file" multiple> <button id="send">Upload</button>
</form>
<ul id="files">${files.map((f) => `<li><a href="${base}/download/${f.id}">${escape_html(f.filename)}</a> (${f.size} bytes)</li>`).join('')}</ul>
</body></html>`

function escape_html(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** The demo's own path without a trailing slash ('' standalone), whatever prefix the showcase mounts it under. */
const base_of = (req: Request, route: string): string =>
  req
    .path()
    .replace(/\/+$/, '')
    .slice(0, route === '/' ? undefined : -route.length)

/**
 * Registers `GET /` (the form and the list), `POST /upload` (multipart, streamed, limited), `GET /list` and `GET
 * /download/{id}`. Files live in a temporary folder removed when the app closes.
 * @example
 * setup_files(app, app, { max_file_bytes: 64 * 1024 })
 */
export function setup_files(
  app: App,
  r: Router,
  { max_file_bytes = 1024 * 1024, max_files = 3, keep = 20 }: FilesOptions = {},
): void {
  const dir = mkdtempSync(join(tmpdir(), 'fw-files-demo-'))
  app.on_close(() => rmSync(dir, { recursive: true, force: true }))
  const stored: Stored[] = []

  r.use('/upload', stream_body())
  r.get('/', (req, res) => res.header('content-type', 'text/html; charset=utf-8').send(page(base_of(req, '/'), stored)))
  const upload = {
    summary: 'Upload files',
    body_type: 'multipart/form-data',
    body: schema({ file: field.array(field.string()).describe(`up to ${max_files} files of ${max_file_bytes} bytes`) }),
    responses: {
      201: schema({ ok: field.literal(true).required(), stored: field.integer().required() }),
      303: { description: 'Stored; a browser (Accept: text/html) goes back to the page' },
    },
  } as const
  r.post('/upload', upload, async (req, res) => {
    const { files } = await req.multipart({ file_size: max_file_bytes, files: max_files }).save()
    for (const f of files) {
      const id = randomUUID()
      const path = join(dir, id)
      await rename(f.path, path)
      stored.push({ id, filename: f.filename.slice(0, 200), mime_type: f.mime_type, size: f.size, path })
    }
    for (const old of stored.splice(0, Math.max(0, stored.length - keep))) await rm(old.path, { force: true })
    // A browser's form post goes back to the page; an API client gets JSON.
    if (req.header('accept').includes('text/html'))
      return res
        .status(303)
        .header('location', `${base_of(req, '/upload')}/`)
        .send()
    return res.status(201).json('ok', true, 'stored', files.length)
  })
  r.get('/list', (_req, res) =>
    res.json(
      'files',
      stored.map(({ id, filename, mime_type, size }) => ({ id, filename, mime_type, size })),
    ),
  )
  r.get('/download/{id}', (req, res) => {
    const f = stored.find((s) => s.id === req.param('id'))
    if (f === undefined) return res.error(404, 'not_found', 'File not found')
    return res
      .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(f.filename)}`)
      .header('content-type', f.mime_type.replace(/[\r\n]/g, '') || 'application/octet-stream')
      .file(f.path)
  })
}

export const demo: Demo = {
  name: 'files',
  description: 'an upload form (multipart, 1 MiB and 3 files at most), the list of uploads and their download',
  setup(app, r) {
    setup_files(app, r)
  },
}
