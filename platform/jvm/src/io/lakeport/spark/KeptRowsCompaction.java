package io.lakeport.spark;

import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.CalendarIntervalType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DayTimeIntervalType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.types.VariantType;
import org.apache.spark.sql.types.YearMonthIntervalType;

/**
 * Moves the kept rows of a column Spark's parquet reader filled to its front, in place: row j becomes row
 * {@code kept[j]} ({@code kept} ascending, so no row is overwritten before it is read). The batch then reads
 * exactly as a plain parquet batch of fewer rows: the same vector classes, the same generated code.
 */
final class KeptRowsCompaction {
  private KeptRowsCompaction() { }

  /** True for the types {@link #compact} moves; a scan with another type reads rows (`supportBatch`). */
  static boolean supports(DataType type) {
    if (type instanceof StructType struct) {
      for (StructField field : struct.fields()) {
        if (!supports(field.dataType())) {
          return false;
        }
      }
      return true;
    }
    return type instanceof BooleanType || type instanceof ByteType || type instanceof ShortType
        || type instanceof IntegerType || type instanceof DateType || type instanceof YearMonthIntervalType
        || type instanceof LongType || type instanceof TimestampType || type instanceof TimestampNTZType
        || type instanceof DayTimeIntervalType || type instanceof FloatType || type instanceof DoubleType
        || type instanceof DecimalType || type instanceof StringType || type instanceof BinaryType
        || type instanceof ArrayType || type instanceof MapType || type instanceof CalendarIntervalType
        || type instanceof VariantType || type instanceof NullType;
  }

  static void compact(WritableColumnVector v, int[] kept, int count) {
    if (v.isAllNull()) {
      return;  // a column the file lacks: null in every row
    }
    if (v.hasNull()) {
      for (int j = 0; j < count; j++) {
        if (v.isNullAt(kept[j])) {
          v.putNull(j);
        } else {
          v.putNotNull(j);
        }
      }
    }
    if (v.hasDictionary()) {
      ints(v.getDictionaryIds(), kept, count);  // values stay dictionary-encoded until read
      return;
    }
    DataType type = v.dataType();
    if (type instanceof IntegerType || type instanceof DateType || type instanceof YearMonthIntervalType) {
      ints(v, kept, count);
    } else if (type instanceof LongType || type instanceof TimestampType || type instanceof TimestampNTZType
        || type instanceof DayTimeIntervalType) {
      longs(v, kept, count);
    } else if (type instanceof DoubleType) {
      for (int j = 0; j < count; j++) {
        v.putDouble(j, v.getDouble(kept[j]));
      }
    } else if (type instanceof StringType || type instanceof BinaryType || type instanceof ArrayType
        || type instanceof MapType) {
      arrays(v, kept, count);
    } else if (type instanceof DecimalType decimal) {
      if (decimal.precision() <= Decimal.MAX_INT_DIGITS()) {
        ints(v, kept, count);
      } else if (decimal.precision() <= Decimal.MAX_LONG_DIGITS()) {
        longs(v, kept, count);
      } else {
        arrays(v, kept, count);
      }
    } else if (type instanceof FloatType) {
      for (int j = 0; j < count; j++) {
        v.putFloat(j, v.getFloat(kept[j]));
      }
    } else if (type instanceof BooleanType) {
      for (int j = 0; j < count; j++) {
        v.putBoolean(j, v.getBoolean(kept[j]));
      }
    } else if (type instanceof ByteType) {
      for (int j = 0; j < count; j++) {
        v.putByte(j, v.getByte(kept[j]));
      }
    } else if (type instanceof ShortType) {
      for (int j = 0; j < count; j++) {
        v.putShort(j, v.getShort(kept[j]));
      }
    } else if (type instanceof StructType struct) {
      children(v, struct.fields().length, kept, count);
    } else if (type instanceof CalendarIntervalType) {
      children(v, 3, kept, count);  // months, days, microseconds
    } else if (type instanceof VariantType) {
      children(v, 2, kept, count);  // value, metadata
    } else if (!(type instanceof NullType)) {
      throw new IllegalStateException("deletion vectors: cannot drop rows of a column of type " + type);
    }
  }

  private static void ints(WritableColumnVector v, int[] kept, int count) {
    for (int j = 0; j < count; j++) {
      v.putInt(j, v.getInt(kept[j]));
    }
  }

  private static void longs(WritableColumnVector v, int[] kept, int count) {
    for (int j = 0; j < count; j++) {
      v.putLong(j, v.getLong(kept[j]));
    }
  }

  private static void arrays(WritableColumnVector v, int[] kept, int count) {
    for (int j = 0; j < count; j++) {
      int row = kept[j];
      v.putArray(j, v.getArrayOffset(row), v.getArrayLength(row));
    }
  }

  private static void children(WritableColumnVector v, int width, int[] kept, int count) {
    for (int i = 0; i < width; i++) {
      compact(v.getChild(i), kept, count);
    }
  }
}
