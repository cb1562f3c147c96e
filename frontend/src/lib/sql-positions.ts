// Positions the API gives in a script: line/column count characters (an emoji is one), offsets count UTF-16 units.

/** The string index in `line` of its 1-based `column`, counted in characters as the server counts them. */
export function columnIndex(line: string, column: number): number {
  let index = 0;
  let left = Math.max(0, column - 1);
  for (const ch of line) {
    if (left === 0) break;
    index += ch.length; // 2 for a character outside the Basic Multilingual Plane
    left--;
  }
  return index + left;
}
