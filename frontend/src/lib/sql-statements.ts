// Splitting a script into statements, shared by the editor's markers and the run page's statement list.

/** [from, to) of each statement in the script: split at `;` outside strings, comments and quoted names. */
export function statementRanges(doc: string): [number, number][] {
  const ranges: [number, number][] = [];
  let start = 0;
  let quote: string | null = null;
  for (let i = 0; i < doc.length; i++) {
    const ch = doc[i];
    if (quote) {
      if (ch === "\\" && quote !== "`") i++;
      else if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"' || ch === "`") quote = ch;
    else if (ch === "-" && doc[i + 1] === "-") {
      const nl = doc.indexOf("\n", i);
      i = nl < 0 ? doc.length : nl;
    } else if (ch === ";") {
      ranges.push([start, i]);
      start = i + 1;
    }
  }
  if (doc.slice(start).trim()) ranges.push([start, doc.length]);
  return ranges.filter(([a, b]) => doc.slice(a, b).trim().length > 0);
}
