// Where a profiled function sits in the sources. Bench servers run as built JavaScript (bench/compiled.ts): fw's code in
// the package's modules and chunks, each server's own in one file; the source map written beside each gives back the
// file and line each function came from, so profiles name `response.ts:185` rather than `chunk-XYZ.js:2345`, and sort
// functions into layers by their own file.
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { SourceMap } from 'node:module'
import { fileURLToPath } from 'node:url'

/** A function's frame as V8's CPU and sampling heap profiles give it (line and column 0-based). */
export interface CallFrame {
  functionName: string
  url: string
  lineNumber: number
  columnNumber: number
}

/** Each script's source map, read once; null for scripts without one (Node's own, packages). */
const maps = new Map<string, SourceMap | null>()

function map_of(url: string): SourceMap | null {
  let map = maps.get(url)
  if (map === undefined) {
    const file = url.startsWith('file://') ? `${fileURLToPath(url)}.map` : undefined
    map = file !== undefined && existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, 'utf8'))) : null
    maps.set(url, map)
  }
  return map
}

/**
 * Where `frame` runs from: its source file (a path or URL; its own script's unless a source map says) and the function's
 * name in profile summaries, `name file:line` (`name` alone for V8's own entries).
 */
export function source_of(frame: CallFrame): { url: string; key: string } {
  const entry = map_of(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber)
  // Node 20 gives an empty object for a position the map does not cover.
  const [url, line] =
    entry === undefined || !('originalSource' in entry)
      ? [frame.url, frame.lineNumber]
      : [entry.originalSource, entry.originalLine]
  return { url, key: `${frame.functionName || '(anonymous)'} ${url ? `${path.basename(url)}:${line + 1}` : ''}` }
}
