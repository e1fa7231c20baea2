// Test helper: a TypeScript fixture bundled into one plain JS file, so a child process starts in node's time, not
// tsx's.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildSync } from 'esbuild'
import type { Teardown } from './build.js'

/**
 * Bundles `entry` (a path relative to the repository) into a temp folder readable by any user; removed when the test
 * ends.
 */
export function bundle(t: Teardown, entry: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'fw-bundle-'))
  const out = join(dir, 'child.mjs')
  buildSync({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', outfile: out, logLevel: 'error' })
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return out
}

/**
 * The environment for a bundled child: without NODE_OPTIONS, through which tap would load its loaders into the child
 * too.
 */
export function plain_env(): NodeJS.ProcessEnv {
  const env = { ...process.env }
  delete env.NODE_OPTIONS
  return env
}

/** The user and group `nobody`, whom root may run a child as to meet the permissions root itself ignores. */
const NOBODY = 65534

/**
 * Runs a bundled script as `nobody` (the caller must be root) in `cwd`, a folder nobody may enter: Node cannot start
 * without a working directory (uv_cwd), and the checkout may sit in a private (0700) folder. `env -u NODE_OPTIONS`
 * drops the loader tap's process tracking adds to every child it spawns, which lives in the checkout too.
 */
export function run_as_nobody(script: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync('env', ['-u', 'NODE_OPTIONS', process.execPath, script, ...args], {
    cwd,
    uid: NOBODY,
    gid: NOBODY,
    env: plain_env(),
    encoding: 'utf8',
  })
}
