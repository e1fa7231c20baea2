import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { import_cycles } from '../helpers/import-graph.js'

t.test('import cycles', async (t) => {
  t.test('the check finds a circle through type-only imports, re-exports and import()', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'fw-cycles-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    mkdirSync(join(dir, 'sub'))
    const files: Record<string, string> = {
      'a.ts': "import type { B } from './sub/b.js'\nexport type A = B[]\n",
      'sub/b.ts': "export { a_value } from '../c.js'\nexport type B = string\n",
      'c.ts': "import type { A } from './a.js'\nexport const a_value: A = []\n",
      'd.ts': "export const d = () => import('./e.js')\n",
      'e.ts': "import { d } from './d.js'\nexport const e = d\n",
      'f.ts': "import { e } from './e.js'\nimport './f.js'\nexport const f = e\n",
      'g.ts': "import { f } from './f.js'\nimport { x } from 'some-package'\nexport const g = [f, x]\n",
    }
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
    t.strictSame(import_cycles(['.'], dir), [
      ['a.ts', 'sub/b.ts', 'c.ts', 'a.ts'],
      ['d.ts', 'e.ts', 'd.ts'],
      ['f.ts', 'f.ts'],
    ])
    t.strictSame(import_cycles(['a.ts', 'sub'], dir), [], 'imports of files outside the roots are left out')
  })

  t.test('no import circle in lib/, adapters/ or index.ts', async (t) => {
    t.strictSame(
      import_cycles(['lib', 'adapters', 'index.ts']).map((c) => c.join(' -> ')),
      [],
      'each circle, as a path back to where it starts',
    )
  })
})
