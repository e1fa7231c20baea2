// `node load-entries.mjs <package> <entry>...`, run by check-package.ts inside the consumer project it installs the
// packed package into. Loads every entry; one that the package also exports as a namespace (`fw/middleware`,
// `fw.middleware`) must give the very same values: the bundled entries share their code through chunks, so a class or a
// module's state exists once.
import process from 'node:process'

const [name, ...entries] = process.argv.slice(2)
const root = await import(name)
const apart = []
for (const entry of entries) {
  const ns = await import(entry)
  // `fw` itself names no namespace of its own: `root['']` is undefined.
  const of_root = root[entry.slice(name.length + 1)]
  if (of_root !== undefined) for (const key in ns) if (ns[key] !== of_root[key]) apart.push(`${entry} ${key}`)
}
if (apart.length > 0) throw new Error(`entries hold copies of what ${name} exports: ${apart.join(', ')}`)
process.stdout.write('loaded every entry, one instance of each\n')
