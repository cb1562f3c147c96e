import { SQLDialect } from "@codemirror/lang-sql";

// Spark SQL's keywords (a `keywords` list replaces lang-sql's defaults, so it is complete here),
// backtick-quoted identifiers and "double-quoted" strings.
const SPARK_KEYWORDS = [
  "add after all alter analyze and anti any archive array as asc at authorization between both bucket buckets by",
  "cache cascade case cast catalog catalogs change cluster clustered code codegen collate collection column columns",
  "comment commit compact compactions compute concatenate constraint cost create cross cube current current_date",
  "current_time current_timestamp current_user data database databases day dbproperties defined delete delimited desc",
  "describe dfs directories directory distinct distribute div drop else end escape escaped except exchange exists",
  "explain export extended external extract false fetch fields fileformat first following for foreign format",
  "formatted from full function functions global grant group grouping having hour if ignore ilike import in index",
  "indexes inner inpath inputformat insert intersect interval into is items join keys last lateral lazy leading left",
  "like limit lines list load local location lock locks logical macro map matched merge minute month msck namespace",
  "namespaces natural no not null nulls of offset on only option options or order out outer outputformat over",
  "overlay overwrite partition partitioned partitions percent pivot placing position preceding primary principals",
  "properties purge qualify query range recordreader recordwriter recover reduce references refresh rename repair",
  "replace reset respect restrict revoke right rlike role roles rollback rollup row rows schema schemas second select",
  "semi separated serde serdeproperties session_user set sets show skewed some sort sorted start statistics stored",
  "stratify struct substr substring sync table tables tablesample tblproperties temp temporary terminated then time",
  "to touch trailing transaction transactions transform trim true truncate type unarchive unbounded uncache union",
  "unique unknown unlock unpivot unset update use user using values view views when where window with year zone",
].join(" ");

const SPARK_TYPES =
  "boolean tinyint byte smallint short int integer bigint long float real double decimal dec numeric string char " +
  "varchar binary date timestamp timestamp_ltz timestamp_ntz interval array map struct void variant";

const SPARK_BUILTINS =
  "count sum avg min max coalesce concat date_format date_add date_sub datediff explode from_unixtime lower upper " +
  "nvl round row_number rank dense_rank split to_date to_timestamp unix_timestamp collect_list collect_set size";

export const SparkSQL = SQLDialect.define({
  keywords: SPARK_KEYWORDS,
  types: SPARK_TYPES,
  builtin: SPARK_BUILTINS,
  identifierQuotes: "`",
  doubleQuotedStrings: true,
  backslashEscapes: true,
});
