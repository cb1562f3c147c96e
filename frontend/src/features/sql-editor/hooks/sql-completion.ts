// Completion of catalog, database, table and column names, fetched lazily from the metadata API.
import type { Completion, CompletionContext, CompletionResult, CompletionSource } from "@codemirror/autocomplete";
import type { QueryClient } from "@tanstack/react-query";

import {
  fetchCatalogNames,
  fetchColumns,
  fetchDatabaseNames,
  fetchTableNames,
} from "@/features/sql-editor/api/get-completion-metadata";

const NOT_ALIAS = new Set([
  "where", "join", "left", "right", "inner", "outer", "full", "cross", "on", "group", "order", "limit", "union",
  "having", "using", "natural", "lateral", "select", "from", "set", "values", "window", "except", "intersect",
]);

type TableRef = { catalog: string; database: string; table: string; alias?: string };

const unquote = (s: string) => s.replace(/`/g, "");

/** Tables the script names as catalog.database.table (or database.table in the default catalog), with aliases. */
export function referencedTables(doc: string, defaultCatalog: string): TableRef[] {
  const refs: TableRef[] = [];
  const re = /\b(?:from|join|into|table|update)\s+((?:`[^`]+`|\w+)(?:\.(?:`[^`]+`|\w+)){1,2})(?:\s+(?:as\s+)?(`[^`]+`|\w+))?/gi;
  for (const m of doc.matchAll(re)) {
    const parts = m[1].split(".").map(unquote);
    const alias = m[2] && !NOT_ALIAS.has(m[2].toLowerCase()) ? unquote(m[2]) : undefined;
    if (parts.length === 3) refs.push({ catalog: parts[0], database: parts[1], table: parts[2], alias });
    else if (defaultCatalog) refs.push({ catalog: defaultCatalog, database: parts[0], table: parts[1], alias });
  }
  return refs;
}

function quoteIfNeeded(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `\`${name.replace(/`/g, "``")}\``;
}

const opt = (label: string, type: string, detail: string, boost = 0): Completion => ({
  label,
  apply: quoteIfNeeded(label),
  type,
  detail,
  boost,
});

export function metadataCompletionSource(
  qc: QueryClient,
  getTeam: () => string,
  getDefaultCatalog: () => string,
): CompletionSource {
  return async (ctx: CompletionContext): Promise<CompletionResult | null> => {
    const before = ctx.matchBefore(/(?:`[^`]*`|`[^`]*|\w+|\.)*$/);
    if (!before) return null;
    const text = before.text;
    const lastDot = text.lastIndexOf(".");
    const word = text.slice(lastDot + 1);
    if (lastDot < 0 && word.length === 0 && !ctx.explicit) return null;
    const path = lastDot < 0 ? [] : text.slice(0, lastDot).split(".").map(unquote);
    const from = before.from + lastDot + 1;
    const team = getTeam();
    const dflt = getDefaultCatalog();
    try {
      const catalogs = await fetchCatalogNames(qc, team);
      const isCatalog = (n: string) => catalogs.some((c) => c.catalog_name === n);
      const options: Completion[] = [];
      const doc = ctx.state.doc.toString();

      const columnsOf = async (r: TableRef, boost: number) =>
        (await fetchColumns(qc, team, r.catalog, r.database, r.table)).map((c) =>
          opt(c.name, "property", `${c.type} · ${r.table}`, boost),
        );

      if (path.length === 0) {
        options.push(...catalogs.map((c) => opt(c.catalog_name, "namespace", `${c.catalog_type} catalog`, 1)));
        if (dflt && isCatalog(dflt)) {
          options.push(...(await fetchDatabaseNames(qc, team, dflt)).map((d) => opt(d, "namespace", `database in ${dflt}`)));
        }
        for (const r of referencedTables(doc, dflt)) {
          options.push(...(await columnsOf(r, 2).catch(() => [])));
        }
      } else if (path.length === 1) {
        const [p] = path;
        if (isCatalog(p)) {
          options.push(...(await fetchDatabaseNames(qc, team, p)).map((d) => opt(d, "namespace", `database in ${p}`)));
        } else {
          const ref = referencedTables(doc, dflt).find((r) => r.alias === p || (!r.alias && r.table === p));
          if (ref) options.push(...(await columnsOf(ref, 0)));
          else if (dflt && isCatalog(dflt)) {
            options.push(...(await fetchTableNames(qc, team, dflt, p)).map((tb) => opt(tb, "class", `table in ${dflt}.${p}`)));
          }
        }
      } else if (path.length === 2) {
        const [a, b] = path;
        if (isCatalog(a)) options.push(...(await fetchTableNames(qc, team, a, b)).map((tb) => opt(tb, "class", `table in ${a}.${b}`)));
        else if (dflt) options.push(...(await columnsOf({ catalog: dflt, database: a, table: b }, 0)));
      } else if (path.length === 3 && isCatalog(path[0])) {
        options.push(...(await columnsOf({ catalog: path[0], database: path[1], table: path[2] }, 0)));
      }
      if (options.length === 0) return null;
      const seen = new Set<string>();
      const unique = options.filter((o) => (seen.has(`${o.type}:${o.label}`) ? false : (seen.add(`${o.type}:${o.label}`), true)));
      return { from, options: unique, validFor: /^(?:`[^`]*`?|\w*)$/ };
    } catch {
      // metadata unavailable (a catalog that cannot be reached): keywords still complete
      return null;
    }
  };
}
