// Test helper: a TypeScript fixture bundled into one plain JS file, so a child process starts in node's time, not
// tsx's.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildSync } from 'esbuild'
import type { Teardown } from './build.js'
import { plain_node } from './plain-node.js'

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

/** The user and group `nobody`, whom root may run a child as to meet the permissions root itself ignores. */
const NOBODY = 65534

/**
 * Runs a bundled script as `nobody` (the caller must be root) in `cwd`, a folder nobody may enter: Node cannot start
 * without a working directory (uv_cwd), and the checkout may sit in a private (0700) folder. Without the runner's
 * loader (plain_node), which lives in the checkout too.
 */
export function run_as_nobody(script: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync(...plain_node([script, ...args]), { cwd, uid: NOBODY, gid: NOBODY, encoding: 'utf8' })
}
