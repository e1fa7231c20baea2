// What the package checks share (the consumer test and `npm run check:package`): fw's manifest, its entry points as a
// user imports them, the versions this repository installed (a consumer installs the same ones, from the npm cache),
// and packing fw as npm publishes it.
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { ROOT } from '../helpers/import-graph.js'

const require = createRequire(import.meta.url)

/** fw's package.json, the fields the checks read. */
export const FW = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string
  engines: { node: string }
  exports: Record<string, { types: string; default: string }>
  dependencies: Record<string, string>
  peerDependencies: Record<string, string>
}

/** Every entry point as a user imports it: `fw`, `fw/middleware`... */
export const ENTRIES = Object.keys(FW.exports).map((e) => FW.name + e.slice(1))

/** The version of a package installed in this repository. */
export function installed(name: string): string {
  return (JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version: string }).version
}

/** A tarball `npm pack` wrote: its file name and the paths it holds. */
export interface Packed {
  filename: string
  files: string[]
}

/**
 * Packs fw as npm would publish it, into `dest`: its `prepack` script builds `dist/` first. `{ scripts: false }` packs
 * `dist/` as it stands and only lists the files (`--dry-run --ignore-scripts`), writing nothing.
 */
export async function pack(dest: string, { scripts = true } = {}): Promise<Packed> {
  const flags = scripts ? [] : ['--dry-run', '--ignore-scripts']
  const { stdout } = await promisify(execFile)('npm', ['pack', '--json', ...flags, '--pack-destination', dest], {
    cwd: ROOT,
    maxBuffer: 1 << 26,
  })
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>
  return { filename: packed!.filename, files: packed!.files.map((f) => f.path) }
}
