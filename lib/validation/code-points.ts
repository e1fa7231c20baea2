// Text length as people count it: Unicode code points, so an emoji is one character, not two UTF-16 units.

/**
 * The number of Unicode code points in `text` (no normalisation: `é` precomposed is 1, `e` plus a combining accent is
 * 2). A lone surrogate counts as one.
 * @example
 * code_point_length('😀') // 1, where '😀'.length is 2
 */
export function code_point_length(text: string): number {
  let count = 0
  for (const _ of text) count++
  return count
}
