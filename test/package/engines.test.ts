// fw's `engines.node` against the installed tree, development tools included: every Node fw admits, every installed
// package admits (fw promises nothing its tree refuses), and every Node all of them admit, fw admits too (fw is no
// narrower than its tree). The Nodes the suite runs on are checked against both, and the conflict on Node 20 is stated.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import semver from 'semver'
import t from 'tap'
import { ROOT } from '../helpers/import-graph.js'

/** An installed package: where it is, its version and `engines.node`, and whether only development installs it. */
interface Installed {
  path: string
  name: string
  version: string
  node: string
  dev: boolean
}

/** The Nodes the suite runs on: the machine's Node 20 and the Node 24 of bench/wrk.ts (and whichever runs this). */
const SUITE_NODES = [...new Set(['20.20.2', '24.21.0', process.versions.node])]

const fw = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { dev?: boolean }>
}

/** Every package under `dir` as npm lays them out (`<name>`, `@scope/<name>`, and each one's own `node_modules`). */
function installed(dir: string): Installed[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (!e.isDirectory() || e.name.startsWith('.')) return []
    if (e.name.startsWith('@')) return installed_in(join(dir, e.name), readdirSync(join(dir, e.name)))
    return installed_in(dir, [e.name])
  })
}

/** The packages `names` of `dir` that declare `engines.node`, then the ones nested under each. */
function installed_in(dir: string, names: string[]): Installed[] {
  return names.flatMap((name) => {
    const at = join(dir, name)
    const file = join(at, 'package.json')
    if (!existsSync(file)) return []
    const p = JSON.parse(readFileSync(file, 'utf8')) as { name: string; version: string; engines?: { node?: string } }
    const path = at.slice(ROOT.length + 1)
    const own = p.engines?.node === undefined ? [] : [p.engines.node]
    const nested = installed(join(at, 'node_modules'))
    return [
      ...own.map((node) => ({ path, name: p.name, version: p.version, node, dev: lock.packages[path]?.dev === true })),
      ...nested,
    ]
  })
}

/** Versions on both sides of every bound the ranges name, and each major's first release: where admission can change. */
function probes(ranges: readonly string[]): string[] {
  const out = new Set<string>()
  for (let major = 16; major <= 32; major++) out.add(`${major}.0.0`)
  for (const range of ranges)
    for (const set of new semver.Range(range).set)
      for (const c of set) {
        if (c.value === '') continue // `*`: no bound
        const { major, minor, patch } = c.semver
        out.add(`${major}.${minor}.${patch}`)
        if (patch > 0) out.add(`${major}.${minor}.${patch - 1}`)
        else if (minor > 0) out.add(`${major}.${minor - 1}.9999`)
        else if (major > 0) out.add(`${major - 1}.9999.9999`)
      }
  return [...out].sort((a, b) => semver.compare(a, b))
}

const label = (p: Installed): string => `${p.name}@${p.version} (${p.dev ? 'dev' : 'runtime'}) ${p.node}`

t.test('engines.node', async (t) => {
  const tree = installed(join(ROOT, 'node_modules'))
  const refusing = (version: string): Installed[] => tree.filter((p) => !semver.satisfies(version, p.node))

  t.test('the tree is read', async (t) => {
    t.ok(tree.length > 50, `${tree.length} installed packages declare engines.node`)
    t.ok(
      tree.some((p) => p.name === 'eslint' && p.dev),
      'development tools included',
    )
    t.ok(
      tree.some((p) => p.name === 'cookie' && !p.dev),
      'runtime packages included',
    )
  })

  t.test("every installed package admits every Node fw's range admits", async (t) => {
    t.same(tree.filter((p) => !semver.subset(fw.engines.node, p.node)).map(label), [])
  })

  t.test('fw admits every Node that every installed package admits (no narrower than the tree)', async (t) => {
    const wrong = probes([fw.engines.node, ...tree.map((p) => p.node)]).filter(
      (v) => semver.satisfies(v, fw.engines.node) !== (refusing(v).length === 0),
    )
    t.same(wrong, [])
  })

  t.test('the Nodes the suite runs on', async (t) => {
    for (const version of SUITE_NODES) {
      const refused_by = refusing(version)
      t.comment(
        `Node ${version}: refused by ${refused_by.length === 0 ? 'no package' : refused_by.map(label).join(', ')}`,
      )
      t.equal(semver.satisfies(version, fw.engines.node), refused_by.length === 0, `Node ${version}`)
    }
    t.ok(semver.satisfies('24.21.0', fw.engines.node), 'Node 24 is admitted')
    // The conflict, stated: the suite also runs on Node 20, which fw cannot claim while runtime packages declare Node 22.
    t.same([...new Set(refusing('20.20.2').map((p) => `${p.name} ${p.dev ? 'dev' : 'runtime'} ${p.node}`))].sort(), [
      'cookie runtime >=22',
    ])
  })
})
