// A recursive schema heavy enough that the stack runs out before `max_depth` (default 1,000): each lazy level passes
// through a union, an object, a record and an array, more stack a level than a comment thread.
import { field, type Type } from '../../lib/validation/index.js'

export interface Tree {
  kind: 'node'
  kids?: Record<string, Tree[]>
}

export const Tree: Type<Tree, true> = field
  .union('kind', [
    field.object({
      kind: field.literal('node').required(),
      kids: field.record(field.array(field.lazy(() => Tree, { name: 'Tree' }))),
    }),
  ])
  .required() as unknown as Type<Tree, true>

/** The JSON text of `{ tree }` with `levels` nodes nested, each the only kid of its parent, built as text. */
export const tree_text = (levels: number): string =>
  '{"tree":' + '{"kind":"node","kids":{"a":['.repeat(levels - 1) + '{"kind":"node"}' + ']}}'.repeat(levels - 1) + '}'
