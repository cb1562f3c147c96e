import { SQLDialect, StandardSQL } from "@codemirror/lang-sql";

// Spark SQL quotes identifiers with backticks and has a few statements standard SQL lacks.
export const SparkSQL = SQLDialect.define({
  ...StandardSQL.spec,
  identifierQuotes: "`",
  doubleQuotedStrings: true,
  backslashEscapes: true,
  keywords: `${StandardSQL.spec.keywords ?? ""} catalog catalogs databases describe explain show tables columns use using partitioned tblproperties lateral view explode cache uncache refresh msck repair overwrite rlike ilike qualify pivot unpivot limit offset namespace namespaces functions extended formatted`,
  types: `${StandardSQL.spec.types ?? ""} string bigint tinyint smallint binary map struct array decimal timestamp_ntz`,
});
