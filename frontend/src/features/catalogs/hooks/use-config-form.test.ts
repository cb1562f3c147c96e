import { describe, expect, it } from "vitest";

import { fieldsOf, initialValues, jsonFieldProblems, toConfiguration, type MapRow } from "@/features/catalogs/hooks/use-config-form";
import type { JsonSchema } from "@/features/catalogs/types";

// Shapes as pydantic writes them (model_json_schema(by_alias=True)) for the jdbc and delta types.
const jdbc: JsonSchema = {
  type: "object",
  required: ["type", "base-url", "default-database", "username", "password"],
  properties: {
    type: { enum: ["postgresql", "mysql"], type: "string", title: "Type" },
    "base-url": { type: "string", maxLength: 500, title: "Base-Url" },
    "default-database": { type: "string", title: "Default-Database" },
    username: { type: "string" },
    password: { type: "string", format: "password", secret: true, writeOnly: true },
    properties: { type: "object", additionalProperties: { type: "string" } },
  },
};
const delta: JsonSchema = {
  type: "object",
  required: ["warehouse"],
  properties: {
    warehouse: { type: "string" },
    "storage-options": { type: "object", additionalProperties: { type: "string" }, secret: true, secretValues: true, writeOnly: true },
    "default-database": { type: "string", default: "default" },
    "hadoop-conf-dir": { anyOf: [{ type: "string" }, { type: "null" }], default: null },
  },
};

describe("fieldsOf", () => {
  it("turns schema properties into labelled inputs of the right kind", () => {
    const byName = Object.fromEntries(fieldsOf(jdbc).map((f) => [f.name, f]));
    expect(byName.type).toMatchObject({ kind: "select", options: ["postgresql", "mysql"], required: true });
    expect(byName["base-url"]).toMatchObject({ kind: "text", label: "Base URL", maxLength: 500 });
    expect(byName.password).toMatchObject({ kind: "secret", isSecret: true });
    expect(byName.properties).toMatchObject({ kind: "map", isSecret: false, required: false });
  });

  it("reads optional fields through anyOf-null and marks secret maps", () => {
    const byName = Object.fromEntries(fieldsOf(delta).map((f) => [f.name, f]));
    expect(byName["hadoop-conf-dir"]).toMatchObject({ kind: "text", required: false });
    expect(byName["storage-options"]).toMatchObject({ kind: "map", secretValues: true, isSecret: true });
  });
});

describe("toConfiguration", () => {
  it("leaves out empty optional fields so the type's defaults apply", () => {
    const fields = fieldsOf(delta);
    const values = initialValues(fields);
    values.warehouse = "/data/wh";
    values["default-database"] = "";
    expect(toConfiguration(fields, values, new Set())).toEqual({ warehouse: "/data/wh" });
  });

  it("never sends a stored secret the user kept, and sends a replacement", () => {
    const fields = fieldsOf(jdbc);
    const stored = { type: "postgresql", "base-url": "jdbc:postgresql://db:5432/", "default-database": "sales", username: "u", properties: {} };
    const values = initialValues(fields, stored, ["password"]);
    expect(values.password).toBe("");
    expect(toConfiguration(fields, values, new Set(["password"]))).not.toHaveProperty("password");
    values.password = "n3w";
    expect(toConfiguration(fields, values, new Set())).toMatchObject({ password: "n3w", username: "u" });
  });

  it("keeps stored secret-map keys, removes the ones marked, adds new ones", () => {
    const fields = fieldsOf(delta);
    const values = initialValues(fields, { warehouse: "s3a://b/wh" }, ["storage-options.KEY_ID", "storage-options.SECRET"]);
    const rows = values["storage-options"] as MapRow[];
    expect(rows.map((r) => [r.key, r.stored])).toEqual([["KEY_ID", true], ["SECRET", true]]);
    rows[1].removed = true;
    rows.push({ key: "REGION", value: "eu-west-1" });
    expect(toConfiguration(fields, values, new Set())["storage-options"]).toEqual({ SECRET: null, REGION: "eu-west-1" });
  });
});

// A stream catalog's `tables`, as pydantic writes it for redis-streams (model_json_schema(by_alias=True)).
const redisStreams: JsonSchema = {
  type: "object",
  required: ["url"],
  properties: {
    url: { type: "string" },
    tables: { type: "object", additionalProperties: { $ref: "#/$defs/StreamTableSpec" } },
  },
  $defs: {
    StreamColumnSpec: {
      type: "object",
      additionalProperties: false,
      required: ["name", "type"],
      properties: { name: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]{0,127}$" }, type: { type: "string" } },
    },
    StreamTableSpec: {
      type: "object",
      additionalProperties: false,
      required: ["columns"],
      properties: {
        columns: { type: "array", items: { $ref: "#/$defs/StreamColumnSpec" }, minItems: 1, maxItems: 500 } as JsonSchema,
        "event-time": { anyOf: [{ type: "string" }, { type: "null" }], default: null },
        format: { anyOf: [{ enum: ["json", "csv", "parquet"], type: "string" }, { type: "null" }], default: null },
      },
    },
  },
};

describe("json fields", () => {
  const tables = fieldsOf(redisStreams).find((f) => f.name === "tables")!;

  it("edits a map of objects as JSON checked against its schema", () => {
    expect(tables.kind).toBe("json");
    const good = { "default.orders": { columns: [{ name: "id", type: "bigint" }, { name: "ts", type: "timestamp" }], "event-time": "ts" } };
    expect(jsonFieldProblems(tables, JSON.stringify(good, null, 2))).toEqual([]);
    expect(jsonFieldProblems(tables, JSON.stringify({ "default.t": { columns: [{ name: "a", type: "string" }], "event-time": null } }))).toEqual([]);
    expect(toConfiguration([tables], { tables: JSON.stringify(good) }, new Set())).toEqual({ tables: good });
  });

  it("names what is wrong, and where", () => {
    expect(jsonFieldProblems(tables, '{"default.orders": {')[0]).toMatch(/^not valid JSON/);
    expect(jsonFieldProblems(tables, '{"default.orders": {"columns": []}}')).toEqual(['default.orders["columns"]: needs at least 1 item(s)']);
    expect(jsonFieldProblems(tables, '{"default.orders": {"columns": [{"name": "1st", "type": "int"}], "format": "xml"}}')).toEqual([
      'default.orders["columns"][0]["name"]: \'1st\' does not match ^[A-Za-z_][A-Za-z0-9_]{0,127}$',
      'default.orders["format"]: must be one of json, csv, parquet',
    ]);
    expect(jsonFieldProblems(tables, '{"default.orders": {"cols": []}}')).toEqual([
      "default.orders.columns: required",
      'default.orders["cols"]: not a known setting',
    ]);
    expect(jsonFieldProblems(tables, "[]")).toEqual(["value: expected object, got array"]);
    expect(jsonFieldProblems(tables, "")).toEqual([]);
  });
});
