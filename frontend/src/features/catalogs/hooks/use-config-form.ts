// Turns a type's JSON Schema into form fields, form values into the API's `configuration` object, and back.
import type { JsonSchema } from "@/features/catalogs/types";

export type FieldKind = "text" | "secret" | "select" | "number" | "checkbox" | "map" | "json";

export type ConfigField = {
  name: string; // the hyphenated key the API uses
  label: string;
  kind: FieldKind;
  required: boolean;
  description?: string;
  options?: string[];
  defaultValue?: unknown;
  maxLength?: number;
  secretValues?: boolean; // a map whose values are all secret
  isSecret: boolean;
  schema?: JsonSchema; // a json field's own schema, checked in the browser as the user types
  root?: JsonSchema; // the type's whole schema (its $defs resolve the field's $refs)
};

// a row of a map field; `stored` rows of a secret map are keys whose value is set on the server (never sent back)
export type MapRow = { key: string; value: string; stored?: boolean; removed?: boolean };
export type FormValue = string | boolean | MapRow[];
export type FormValues = Record<string, FormValue>;

function deref(s: JsonSchema, root: JsonSchema): JsonSchema {
  if (s.$ref) {
    const name = s.$ref.split("/").pop() ?? "";
    const target = root.$defs?.[name] ?? (root as { definitions?: Record<string, JsonSchema> }).definitions?.[name];
    return target ? { ...target, ...s, $ref: undefined } : s;
  }
  return s;
}

/** The non-null branch of `anyOf: [X, {type: null}]` (how pydantic writes an optional field). */
function nonNull(s: JsonSchema, root: JsonSchema): JsonSchema {
  const branches = s.anyOf ?? s.oneOf;
  if (branches) {
    const real = branches.map((b) => deref(b, root)).filter((b) => b.type !== "null");
    if (real.length === 1) return { ...real[0], ...s, anyOf: undefined, oneOf: undefined, type: real[0].type };
  }
  return s;
}

const ACRONYMS: Record<string, string> = { url: "URL", uri: "URI", uris: "URIs", jdbc: "JDBC", ssl: "SSL" };

/** "base-url" → "Base URL" (the hyphenated key is shown beside it). */
function humanize(key: string): string {
  const words = key.split(/[-_]/).map((w) => ACRONYMS[w.toLowerCase()] ?? w);
  const text = words.join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** True when a map's values are objects or arrays (e.g. a stream catalog's `tables`): edited as JSON. */
function isStructured(values: JsonSchema["additionalProperties"], root: JsonSchema): boolean {
  if (!values || typeof values !== "object") return false;
  const s = nonNull(deref(values, root), root);
  return s.type === "object" || s.type === "array" || !!s.properties;
}

const TYPE_OF = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v;

/**
 * Problems of `value` against `schema` (the subset pydantic writes: type, enum, required, properties,
 * additionalProperties, items, pattern, length and item bounds, anyOf with null), each naming its path.
 * The API validates again; this only tells the user early.
 */
export function validateJson(value: unknown, schema: JsonSchema, root: JsonSchema, path = ""): string[] {
  const s = deref(schema, root);
  const at = path || "value";
  const branches = s.anyOf ?? s.oneOf;
  if (branches) {
    const results = branches.map((b) => validateJson(value, b, root, path));
    return results.some((r) => r.length === 0) ? [] : results.find((r) => !r[0]?.includes("got ")) ?? results[0];
  }
  const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
  const actual = TYPE_OF(value);
  if (types.length && !types.includes(actual) && !(actual === "integer" && types.includes("number"))) {
    return [`${at}: expected ${types.join(" or ")}, got ${actual}`];
  }
  if (s.enum && !s.enum.some((e) => e === value)) return [`${at}: must be one of ${s.enum.map(String).join(", ")}`];
  const problems: string[] = [];
  const limits = s as JsonSchema & { minLength?: number; minItems?: number; maxItems?: number };
  if (typeof value === "string") {
    if (s.pattern && !new RegExp(s.pattern, "u").test(value)) problems.push(`${at}: '${value}' does not match ${s.pattern}`);
    if (s.maxLength !== undefined && value.length > s.maxLength) problems.push(`${at}: longer than ${s.maxLength}`);
    if (limits.minLength !== undefined && value.length < limits.minLength) problems.push(`${at}: shorter than ${limits.minLength}`);
  }
  if (Array.isArray(value)) {
    if (limits.minItems !== undefined && value.length < limits.minItems) problems.push(`${at}: needs at least ${limits.minItems} item(s)`);
    if (limits.maxItems !== undefined && value.length > limits.maxItems) problems.push(`${at}: at most ${limits.maxItems} item(s)`);
    if (s.items) value.forEach((item, i) => problems.push(...validateJson(item, s.items as JsonSchema, root, `${path}[${i}]`)));
  }
  if (actual === "object") {
    const obj = value as Record<string, unknown>;
    for (const name of s.required ?? []) if (!(name in obj)) problems.push(`${path ? `${path}.` : ""}${name}: required`);
    for (const [key, item] of Object.entries(obj)) {
      const where = path ? `${path}["${key}"]` : key;
      const own = s.properties?.[key];
      if (own) problems.push(...validateJson(item, own, root, where));
      else if (s.additionalProperties === false) problems.push(`${where}: not a known setting`);
      else if (s.additionalProperties && typeof s.additionalProperties === "object") {
        problems.push(...validateJson(item, s.additionalProperties, root, where));
      }
    }
  }
  return problems;
}

/** Problems of a json field's text: not JSON, or not what the field's schema describes. */
export function jsonFieldProblems(field: ConfigField, text: string): string[] {
  if (text.trim() === "") return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return [`not valid JSON: ${(e as Error).message}`];
  }
  return field.schema ? validateJson(value, field.schema, field.root ?? field.schema) : [];
}

export function fieldsOf(schema: JsonSchema | undefined): ConfigField[] {
  if (!schema?.properties) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, raw]) => {
    const s = nonNull(deref(raw, schema), schema);
    const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
    const isSecret = !!(s.secret || s.writeOnly);
    let kind: FieldKind = "text";
    let options: string[] | undefined;
    const enumValues = s.enum ?? (s.const !== undefined ? [s.const] : undefined);
    if (enumValues) {
      kind = "select";
      options = enumValues.map(String);
    } else if (type === "boolean") kind = "checkbox";
    else if (type === "integer" || type === "number") kind = "number";
    else if (type === "object") kind = isStructured(s.additionalProperties, schema) ? "json" : "map";
    else if (type === "array") kind = "json";
    else if (isSecret) kind = "secret";
    return {
      name,
      label: humanize(name),
      kind,
      required: required.has(name),
      description: s.description,
      options,
      defaultValue: s.default,
      maxLength: s.maxLength,
      secretValues: kind === "map" && !!(s.secretValues || s.secret),
      isSecret: isSecret || (kind === "map" && !!(s.secretValues || s.secret)),
      ...(kind === "json" ? { schema: s, root: schema } : {}),
    };
  });
}

/** Form values for a new catalog (schema defaults) or an existing one (its configuration, secrets blank). */
export function initialValues(
  fields: ConfigField[],
  configuration?: Record<string, unknown>,
  secretsSet: string[] = [],
): FormValues {
  const values: FormValues = {};
  for (const f of fields) {
    const current = configuration?.[f.name];
    const v = current !== undefined && current !== null ? current : configuration ? undefined : f.defaultValue;
    if (f.kind === "checkbox") values[f.name] = v === true;
    else if (f.kind === "map") {
      const obj = v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
      const plain = Object.entries(obj).map(([key, value]) => ({ key, value: String(value ?? "") }));
      // a secret map's values never come back: the API lists its set keys as "<field>.<key>" in secrets_set
      const stored = secretsSet
        .filter((p) => p.startsWith(`${f.name}.`))
        .map((p) => ({ key: p.slice(f.name.length + 1), value: "", stored: true }));
      values[f.name] = [...stored, ...plain];
    } else if (f.kind === "secret") values[f.name] = "";
    else if (f.kind === "json") values[f.name] = v === undefined ? "" : JSON.stringify(v);
    else values[f.name] = v === undefined || v === null ? (f.kind === "select" && f.required && f.options ? f.options[0] : "") : String(v);
  }
  return values;
}

/**
 * The `configuration` body. Empty optional fields are left out so the type's defaults apply; a secret the
 * user did not replace is left out so the stored one is kept.
 */
export function toConfiguration(
  fields: ConfigField[],
  values: FormValues,
  keepSecrets: Set<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = values[f.name];
    if (f.isSecret && keepSecrets.has(f.name)) continue;
    if (f.kind === "checkbox") out[f.name] = v === true;
    else if (f.kind === "map") {
      const rows = (v as MapRow[]).filter((r) => r.key.trim() !== "");
      if (f.secretValues) {
        // stored keys are left out (kept), removed ones sent as null (dropped); new keys carry their value
        const entries = rows.filter((r) => !r.stored || r.removed).map((r) => [r.key.trim(), r.stored ? null : r.value]);
        if (entries.length > 0) out[f.name] = Object.fromEntries(entries);
      } else if (rows.length > 0 || f.required) out[f.name] = Object.fromEntries(rows.map((r) => [r.key.trim(), r.value]));
    } else if (typeof v === "string") {
      if (v.trim() === "") {
        if (f.required) out[f.name] = v; // let the API say it is required, next to the field
        continue;
      }
      if (f.kind === "number") out[f.name] = Number(v);
      else if (f.kind === "json") {
        try {
          out[f.name] = JSON.parse(v);
        } catch {
          out[f.name] = v;
        }
      } else out[f.name] = v;
    }
  }
  return out;
}
