package io.lakeport.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.spark.sql.execution.datasources.FileFormat$;
import org.apache.spark.sql.execution.datasources.PartitionedFile;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFooterReader;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat;
import org.apache.spark.sql.execution.vectorized.ConstantColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.SerializableConfiguration;
import scala.Function1;
import scala.Option;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;
import scala.collection.immutable.Map;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;

/**
 * Spark's parquet reader less the rows a Delta deletion vector deletes, decided while reading: the plan has no
 * Filter and no row-index column. The keep bits of every file of the scan come in the reader option
 * {@value #VECTORS_OPTION}; a file of the scan without bits fails its task.
 *
 * <p>Spark's reader fills a required column named {@code _tmp_metadata_row_index} with each row's index in its
 * file (as Delta-Spark's reader asks it to); each batch comes back with its kept rows moved to the front of its
 * own vectors ({@link KeptRowsCompaction}), so what reads it downstream is Spark's plain parquet code; rows (the
 * row-based reader) are filtered one by one. Not registered as a data source: SQL cannot name it short.
 */
public class DeletionVectorParquetFileFormat extends ParquetFileFormat {
  private static final long serialVersionUID = 1L;

  /** The reader option holding the scan's keep bits (see {@link DeletionVectors}). */
  public static final String VECTORS_OPTION = "lakeport.deletionVectors";

  @Override
  public String shortName() {
    return "lakeport-dv-parquet";
  }

  @Override
  public String toString() {
    return "DeletionVectorParquet";
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof DeletionVectorParquetFileFormat;
  }

  @Override
  public int hashCode() {
    return DeletionVectorParquetFileFormat.class.hashCode();
  }

  @Override
  public boolean supportBatch(SparkSession session, StructType schema) {
    for (StructField field : schema.fields()) {
      if (!KeptRowsCompaction.supports(field.dataType())) {
        return false;  // rows instead, filtered one by one
      }
    }
    return super.supportBatch(session, schema);
  }

  @Override
  public Function1<PartitionedFile, Iterator<InternalRow>> buildReaderWithPartitionValues(
      SparkSession session, StructType dataSchema, StructType partitionSchema, StructType requiredSchema,
      Seq<Filter> filters, Map<String, String> options, Configuration hadoopConf) {
    Option<String> encoded = options.get(VECTORS_OPTION);
    if (encoded.isEmpty()) {
      throw new IllegalArgumentException(toString() + " reads need the option " + VECTORS_OPTION);
    }
    hadoopConf.unset(VECTORS_OPTION);  // every task gets the hadoop conf: the bits travel once, broadcast
    Broadcast<DeletionVectors> vectors =
        JavaSparkContext.fromSparkContext(session.sparkContext()).broadcast(DeletionVectors.decode(encoded.get()));
    String rowIndexName = ParquetFileFormat.ROW_INDEX_TEMPORARY_COLUMN_NAME();
    boolean batches = "true".equals(options.get(FileFormat$.MODULE$.OPTION_RETURNING_BATCH()).getOrElse(() -> ""));
    if (batches && filters.isEmpty() && requiredSchema.getFieldIndex(rowIndexName).isEmpty()) {
      // Nothing pushed into the reader: it returns every row of its row groups in order, so row indexes are
      // counted from the split's first row group instead of read (Spark boxes each index it fills).
      Broadcast<SerializableConfiguration> conf = JavaSparkContext.fromSparkContext(session.sparkContext())
          .broadcast(new SerializableConfiguration(hadoopConf));
      Function1<PartitionedFile, Iterator<InternalRow>> plain = super.buildReaderWithPartitionValues(
          session, dataSchema, partitionSchema, requiredSchema, filters, options, hadoopConf);
      return new Reader(plain, vectors, conf, -1, false, new StructField[0]);
    }
    int rowIndex = requiredSchema.getFieldIndex(rowIndexName).isDefined()
        ? (Integer) requiredSchema.getFieldIndex(rowIndexName).get() : -1;
    boolean asked = rowIndex >= 0;  // the scan itself reads `_metadata.row_index`: keep the column
    StructType withIndex = requiredSchema;
    if (!asked) {
      rowIndex = requiredSchema.length();
      // Nullable, as a column the file lacks must be: Spark's reader fills it instead of refusing the file.
      withIndex = requiredSchema.add(rowIndexName, DataTypes.LongType, true);
    }
    Function1<PartitionedFile, Iterator<InternalRow>> parent = super.buildReaderWithPartitionValues(
        session, dataSchema, partitionSchema, withIndex, filters, options, hadoopConf);
    List<StructField> outputFields = new ArrayList<>();
    for (StructField f : withIndex.fields()) {
      outputFields.add(f);
    }
    for (StructField f : partitionSchema.fields()) {
      outputFields.add(f);
    }
    return new Reader(parent, vectors, null, rowIndex, asked, outputFields.toArray(new StructField[0]));
  }

  /** The parent's reader of one file, less its deleted rows; shipped to executors. */
  private static final class Reader extends AbstractFunction1<PartitionedFile, Iterator<InternalRow>>
      implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final Function1<PartitionedFile, Iterator<InternalRow>> parent;
    private final Broadcast<DeletionVectors> vectors;
    private final Broadcast<SerializableConfiguration> conf;  // set when row indexes are counted
    private final int rowIndex;
    private final boolean keepIndex;
    private final StructField[] fields;

    Reader(Function1<PartitionedFile, Iterator<InternalRow>> parent, Broadcast<DeletionVectors> vectors,
           Broadcast<SerializableConfiguration> conf, int rowIndex, boolean keepIndex, StructField[] fields) {
      this.parent = parent;
      this.vectors = vectors;
      this.conf = conf;
      this.rowIndex = rowIndex;
      this.keepIndex = keepIndex;
      this.fields = fields;
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public Iterator<InternalRow> apply(PartitionedFile file) {
      Iterator rows = new KeptRows(parent.apply(file), vectors.value(), conf == null ? null : conf.value().value(),
          file, rowIndex, keepIndex, fields);
      return rows;
    }
  }

  /** Batches of their kept rows, or rows filtered and projected without the row index. */
  private static final class KeptRows extends AbstractIterator<Object> {
    private final Iterator<InternalRow> input;
    private final DeletionVectors vectors;
    private final PartitionedFile file;
    private DeletionVectors.Entry entry;
    private final int rowIndex;
    private final boolean keepIndex;
    private final StructField[] fields;
    private ColumnarBatch source;
    private ColumnarBatch view;
    private int[] kept = new int[0];
    private UnsafeProjection projection;
    private Object pending;
    private final Configuration counted;  // row indexes counted from the split's first row group (no index column)
    private long nextRow = -1;

    KeptRows(Iterator<InternalRow> input, DeletionVectors vectors, Configuration counted, PartitionedFile file,
             int rowIndex, boolean keepIndex, StructField[] fields) {
      this.input = input;
      this.counted = counted;
      this.vectors = vectors;
      this.file = file;
      this.rowIndex = rowIndex;
      this.keepIndex = keepIndex;
      this.fields = fields;
    }

    @Override
    public boolean hasNext() {
      if (entry == null) {
        entry = vectors.entry(file.toPath().toUri(), file.fileSize());
        if (entry == null) {
          return true;  // next() fails the query: Spark wraps what hasNext() throws in FAILED_READ_FILE
        }
      }
      while (pending == null && input.hasNext()) {
        Object next = input.next();
        pending = next instanceof ColumnarBatch batch ? keptOf(batch) : keptRow((InternalRow) next);
      }
      return pending != null;
    }

    @Override
    public Object next() {
      if (entry == null) {
        throw vectors.missing(file.toPath().toUri(), file.fileSize());
      }
      if (!hasNext()) {
        throw new java.util.NoSuchElementException();
      }
      Object next = pending;
      pending = null;
      return next;
    }

    private ColumnarBatch keptOf(ColumnarBatch batch) {
      int n = batch.numRows();
      if (kept.length < n) {
        kept = new int[n];
      }
      int count = 0;
      if (counted != null) {
        long first = nextRow < 0 ? firstRow() : nextRow;
        nextRow = first + n;
        for (int i = 0; i < n; i++) {
          kept[count] = i;
          count += entry.keeps(first + i) ? 1 : 0;  // no branch: the kept slot is overwritten otherwise
        }
      } else {
        ColumnVector index = batch.column(rowIndex);
        for (int i = 0; i < n; i++) {
          kept[count] = i;
          count += entry.keeps(index.getLong(i)) ? 1 : 0;
        }
      }
      if (count < n) {
        for (int i = 0; i < batch.numCols(); i++) {
          ColumnVector column = batch.column(i);
          if (column instanceof WritableColumnVector writable && (keepIndex || i != rowIndex)) {
            // supportBatch: batches hold only types KeptRowsCompaction moves
            KeptRowsCompaction.compact(writable, kept, count);
          } else if (!(column instanceof ConstantColumnVector) && (counted != null || i != rowIndex)) {
            throw new IllegalStateException("deletion vectors: cannot drop rows of a " + column.getClass());
          }  // a partition value is the same in every row
        }
      }
      if (batch != source) {
        view = keepIndex || counted != null ? batch : withoutIndex(batch);
        source = batch;
      }
      view.setNumRows(count);
      return view;
    }

    /** The index in its file of the split's first row: its first row group's, read with Spark's own filter. */
    private long firstRow() {
      try {
        ParquetMetadata footer = ParquetFooterReader.readFooter(
            HadoopInputFile.fromPath(file.toPath(), counted), ParquetFooterReader.buildFilter(counted, file, false));
        List<BlockMetaData> groups = footer.getBlocks();
        return groups.isEmpty() ? 0 : groups.get(0).getRowIndexOffset();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** The same vectors less the row index Spark filled for us (once per batch object: the reader reuses it). */
    private ColumnarBatch withoutIndex(ColumnarBatch batch) {
      ColumnVector[] columns = new ColumnVector[batch.numCols() - 1];
      for (int i = 0, c = 0; i < batch.numCols(); i++) {
        if (i != rowIndex) {
          columns[c++] = batch.column(i);
        }
      }
      return new ColumnarBatch(columns);
    }

    private InternalRow keptRow(InternalRow row) {
      if (!entry.keeps(row.getLong(rowIndex))) {
        return null;
      }
      if (keepIndex) {
        return row;
      }
      if (projection == null) {
        List<Expression> columns = new ArrayList<>();
        for (int i = 0; i < fields.length; i++) {
          if (i != rowIndex) {
            columns.add(new BoundReference(i, fields[i].dataType(), fields[i].nullable()));
          }
        }
        projection = UnsafeProjection.create(CollectionConverters.asScala(columns).toSeq());
      }
      return projection.apply(row);
    }
  }
}
