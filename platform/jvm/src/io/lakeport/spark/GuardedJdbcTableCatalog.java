package io.lakeport.spark;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableContext;
import org.apache.spark.sql.connector.catalog.TableWritePrivilege;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.execution.datasources.v2.jdbc.JDBCScanBuilder;
import org.apache.spark.sql.execution.datasources.v2.jdbc.JDBCTable;
import org.apache.spark.sql.execution.datasources.v2.jdbc.JDBCTableCatalog;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Spark's JDBC table catalog, with the options a query may pass to a table cut down to a short allow-list.
 *
 * <p>Spark's {@code JDBCTable} merges a query's options over the catalog's own ({@code t WITH ('url' = …)},
 * {@code INSERT INTO t WITH (…)}, DataFrame reader and writer options), so a query could replace the connection
 * ({@code url}, {@code user}, {@code password}, {@code driver}), the table ({@code dbtable}, {@code query}) or run
 * SQL on connect ({@code sessionInitStatement}, {@code prepareQuery}). The SQL guard refuses such options from the
 * parsed plan; this catalog is the second layer: only tuning options reach the JDBC source, and table properties
 * that Spark would append to the database's CREATE TABLE are dropped. The catalog's own configuration (set by the
 * platform at initialize) is untouched.
 */
public class GuardedJdbcTableCatalog extends JDBCTableCatalog {
  /** Scan and write options a query may set (lower case); everything else is dropped. */
  public static final Set<String> ALLOWED_OPTIONS = Set.of(
      "fetchsize", "batchsize", "querytimeout", "isolationlevel", "pushdownpredicate", "pushdownaggregate",
      "pushdownlimit", "pushdownoffset", "pushdowntablesample", "pushdownjoin");
  /** Table properties JDBCTableCatalog reads itself; any other would be appended as SQL to CREATE TABLE. */
  static final Set<String> ALLOWED_PROPERTIES = Set.of("comment", "owner");

  /** {@code options} without the keys a query may not set. */
  public static CaseInsensitiveStringMap allowed(CaseInsensitiveStringMap options) {
    Map<String, String> kept = new HashMap<>();
    options.asCaseSensitiveMap().forEach((key, value) -> {
      if (ALLOWED_OPTIONS.contains(key.toLowerCase(Locale.ROOT))) {
        kept.put(key, value);
      }
    });
    return new CaseInsensitiveStringMap(kept);
  }

  static Table guarded(Table table) {
    if (table instanceof JDBCTable jdbc && !(table instanceof GuardedTable)) {
      return new GuardedTable(jdbc);
    }
    return table;
  }

  @Override
  public Table loadTable(Identifier ident) {
    return guarded(super.loadTable(ident));
  }

  @Override
  public Table loadTable(Identifier ident, Set<TableWritePrivilege> privileges) throws NoSuchTableException {
    return guarded(super.loadTable(ident, privileges));
  }

  @Override
  public Table loadTable(Identifier ident, String version) throws NoSuchTableException {
    return guarded(super.loadTable(ident, version));
  }

  @Override
  public Table loadTable(Identifier ident, long timestamp) throws NoSuchTableException {
    return guarded(super.loadTable(ident, timestamp));
  }

  @Override
  public Table loadTable(Identifier ident, TableContext context, CaseInsensitiveStringMap options)
      throws NoSuchTableException {
    return guarded(super.loadTable(ident, context, allowed(options)));
  }

  @Override
  public Table createTable(Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties) {
    Map<String, String> kept = new HashMap<>();
    properties.forEach((key, value) -> {
      if (ALLOWED_PROPERTIES.contains(key.toLowerCase(Locale.ROOT))) {
        kept.put(key, value);
      }
    });
    return guarded(super.createTable(ident, columns, partitions, kept));
  }

  /** A JDBC table whose scans and writes see only allow-listed options. */
  static final class GuardedTable extends JDBCTable {
    private static final long serialVersionUID = 1L;

    GuardedTable(JDBCTable table) {
      super(table.ident(), table.schema(), table.jdbcOptions(), table.additionalMetrics());
    }

    @Override
    public JDBCScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
      return super.newScanBuilder(allowed(options));
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
      return super.newWriteBuilder(new AllowedWriteInfo(info));
    }
  }

  /** The write's info with its options cut down to the allow-list. */
  record AllowedWriteInfo(LogicalWriteInfo info) implements LogicalWriteInfo {
    @Override
    public CaseInsensitiveStringMap options() {
      return allowed(info.options());
    }

    @Override
    public String queryId() {
      return info.queryId();
    }

    @Override
    public StructType schema() {
      return info.schema();
    }

    @Override
    public Optional<StructType> rowIdSchema() {
      return info.rowIdSchema();
    }

    @Override
    public Optional<StructType> metadataSchema() {
      return info.metadataSchema();
    }
  }
}
