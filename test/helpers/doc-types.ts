// Test helper, run as a child by the docs examples test: type-checks the blocks `write_blocks` wrote into a folder, in
// one TypeScript program, and prints their errors as a JSON list of `page:line:col TScode message`.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import type { DocBlock } from './doc-blocks.js'

/** Errors a fragment may have: a name it uses but does not define, a package other than fw it imports. */
function allowed_in_fragment(d: ts.Diagnostic): boolean {
  if (d.code === 2304 || d.code === 2552) return true
  const message = ts.flattenDiagnosticMessageText(d.messageText, '\n')
  return d.code === 2307 && !/'(fw|\.|\/)/.test(message)
}

/** Type-checks every block of `dir` in one program; returns the blocks' errors. */
export function type_errors(dir: string): string[] {
  const blocks = JSON.parse(readFileSync(join(dir, 'blocks.json'), 'utf8')) as DocBlock[]
  const config = ts.getParsedCommandLineOfConfigFile(
    join(dir, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'))
      },
    },
  )!
  const program = ts.createProgram(config.fileNames, config.options)
  const by_file = new Map(blocks.map((b) => [join(dir, 'src', b.file), b]))
  // The blocks' own errors only: checking the whole of fw's sources too would take most of the time.
  const diagnostics = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()]
  for (const file of by_file.keys()) {
    const source = program.getSourceFile(file)!
    diagnostics.push(...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source))
  }
  const errors: string[] = []
  for (const d of diagnostics) {
    const block = d.file ? by_file.get(d.file.fileName) : undefined
    if (block?.fragment && allowed_in_fragment(d)) continue
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n')
    if (!block || !d.file || d.start === undefined) {
      errors.push(`${d.file?.fileName ?? '(program)'}: ${message}`)
      continue
    }
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start)
    const [page, first] = block.where.split(':') as [string, string]
    errors.push(`${page}:${Number(first) + line}:${character + 1} TS${d.code} ${message}`)
  }
  return errors
}

const [dir] = process.argv.slice(2)
if (dir !== undefined) process.stdout.write(JSON.stringify(type_errors(dir)))
