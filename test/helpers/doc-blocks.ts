// Test helper: the ```ts blocks of README.md and docs/*.md, written out as modules that import `fw` from the sources.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** One ```ts block of a Markdown page. */
export interface DocBlock {
  /** `docs/app.md:27`: the page and the line of the opening fence. */
  readonly where: string
  /** The file name the block is written to, such as `docs-app-md-27.ts`. */
  readonly file: string
  /** Marked ```ts fragment: part of a program, type-checked against declared `app`, `req` and `res`, never run. */
  readonly fragment: boolean
  readonly code: string
}

/** What a fragment may use without defining it: an App, and the request and response of a handler. */
const FRAGMENT_SCOPE = {
  app: "import('fw').App",
  req: "import('fw').Request",
  res: "import('fw').Response",
}

/**
 * The declarations of the names of FRAGMENT_SCOPE a fragment uses but does not define. They come after the block's own
 * code (declarations are hoisted), so the block's line numbers stay those of the page.
 */
function fragment_scope(body: string): string {
  const defines = (name: string): boolean =>
    new RegExp(`^(?:const|let|var|function|class)\\s+${name}\\b`, 'm').test(body)
  const names = Object.entries(FRAGMENT_SCOPE).filter(([name]) => !defines(name))
  return [...names.map(([name, type]) => `declare const ${name}: ${type}`), 'export {}'].join('\n')
}

/** The ```ts blocks of one page; `page` is its path from the repository `root`. */
export function blocks_of(root: string, page: string, text: string): DocBlock[] {
  const blocks: DocBlock[] = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const open = /^```ts(?:\s+(\S+))?\s*$/.exec(lines[i]!)
    if (!open) continue
    const marker = open[1]
    if (marker !== undefined && marker !== 'fragment') throw new Error(`${page}:${i + 1}: unknown marker ${marker}`)
    const end = lines.indexOf('```', i + 1)
    if (end < 0) throw new Error(`${page}:${i + 1}: unclosed block`)
    // A relative import in a page is from the repository root, as a reader runs it there.
    const body = lines
      .slice(i + 1, end)
      .join('\n')
      .replace(/(from ')\.\//g, `$1${root}/`)
    const fragment = marker === 'fragment'
    // The opening fence's line is blank in the file, so an error's line is the page's line.
    const code = `\n${body}\n${fragment ? fragment_scope(body) : ''}\n`
    blocks.push({ where: `${page}:${i + 1}`, file: `${page.replace(/\W/g, '-')}-${i + 1}.ts`, fragment, code })
    i = end
  }
  return blocks
}

/** Every ```ts block of README.md and docs/*.md under `root`. */
export function doc_blocks(root: string): DocBlock[] {
  const pages = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ]
  return pages.flatMap((page) => blocks_of(root, page, readFileSync(join(root, page), 'utf8')))
}

/** `fw` and its subpaths mapped to their sources, from package.json's `exports` (`./dist/x.js` is `x.ts`). */
export function fw_paths(root: string): Record<string, string[]> {
  const exports = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).exports as Record<
    string,
    { default: string }
  >
  const paths: Record<string, string[]> = {}
  for (const [sub, target] of Object.entries(exports)) {
    const source = target.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts')
    paths[`fw${sub.slice(1)}`] = [join(root, source)]
  }
  return paths
}

/**
 * Writes `blocks` into a new temp folder, as an ES module package that sees the repository's node_modules, with a
 * tsconfig that has the repository's options and maps `fw` to the sources. Returns the folder.
 */
export function write_blocks(root: string, blocks: readonly DocBlock[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'fw-doc-blocks-'))
  mkdirSync(join(dir, 'src'))
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir')
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
  const base = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')) as { compilerOptions: object }
  const options = { ...base.compilerOptions, noEmit: true, rootDir: '/', paths: fw_paths(root) }
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, include: ['src'] }, null, 2))
  for (const b of blocks) writeFileSync(join(dir, 'src', b.file), b.code)
  writeFileSync(join(dir, 'blocks.json'), JSON.stringify(blocks))
  return dir
}
