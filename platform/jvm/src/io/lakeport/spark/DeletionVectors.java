package io.lakeport.spark;

import java.io.ByteArrayOutputStream;
import java.io.Serializable;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import org.apache.spark.QueryContext;
import org.apache.spark.SparkRuntimeException;

/**
 * The keep bits of a scan's data files, by the file URI Spark reports as {@code _metadata.file_path}.
 *
 * <p>Wire form (the connector's {@code _vector_option}): base64 of zlib-compressed little-endian records
 * {@code int count; count × (int uriBytes, utf-8 uri, long fileSize, int words, words × long)}; row i of a file
 * is kept when bit i % 64 of word i / 64 is set, and rows past the last word are kept.
 */
public final class DeletionVectors implements Serializable {
  private static final long serialVersionUID = 1L;

  /** One file's keep bits and the size the Delta log gives it. */
  public static final class Entry implements Serializable {
    private static final long serialVersionUID = 1L;
    final long size;
    final long[] words;

    Entry(long size, long[] words) {
      this.size = size;
      this.words = words;
    }

    /** True when row {@code row} of the file is kept. */
    boolean keeps(long row) {
      long word = row >>> 6;
      return word >= words.length || ((words[(int) word] >>> (row & 63)) & 1L) != 0;
    }
  }

  private final Map<String, Entry> byUri;

  private DeletionVectors(Map<String, Entry> byUri) {
    this.byUri = byUri;
  }

  /** Decodes the option value the connector writes. */
  public static DeletionVectors decode(String encoded) {
    byte[] packed = Base64.getDecoder().decode(encoded);
    ByteBuffer in = ByteBuffer.wrap(inflate(packed)).order(ByteOrder.LITTLE_ENDIAN);
    int count = in.getInt();
    Map<String, Entry> byUri = new HashMap<>(count * 2);
    for (int f = 0; f < count; f++) {
      byte[] uri = new byte[in.getInt()];
      in.get(uri);
      long size = in.getLong();
      long[] words = new long[in.getInt()];
      in.asLongBuffer().get(words);
      in.position(in.position() + words.length * 8);
      byUri.put(key(URI.create(new String(uri, StandardCharsets.UTF_8))), new Entry(size, words));
    }
    return new DeletionVectors(byUri);
  }

  /** The keep bits of a file; null when it has none or its size is not the log's (see {@link #missing}). */
  public Entry entry(URI uri, long fileSize) {
    Entry entry = byUri.get(key(uri));
    return entry == null || entry.size != fileSize ? null : entry;
  }

  /**
   * The error of a file without keep bits: reading it as it is would return the rows its vector deletes. The
   * error raise_error gives, so the query fails as with the SQL-expression reader.
   */
  public RuntimeException missing(URI uri, long fileSize) {
    String message = "no deletion vector entry for the data file with file_size " + fileSize + " (" + uri + ")";
    return new SparkRuntimeException("USER_RAISED_EXCEPTION",
        scala.collection.immutable.Map$.MODULE$.<String, String>empty().updated("errorMessage", message),
        null, new QueryContext[0], "");
  }

  /** One spelling per file: {@code file:/a} and {@code file:///a} alike, escapes decoded. */
  private static String key(URI uri) {
    String scheme = uri.getScheme() == null ? "file" : uri.getScheme();
    String authority = uri.getRawAuthority() == null ? "" : uri.getRawAuthority();
    return scheme + "://" + authority + uri.getPath();
  }

  private static byte[] inflate(byte[] packed) {
    Inflater inflater = new Inflater();
    inflater.setInput(packed);
    ByteArrayOutputStream out = new ByteArrayOutputStream(packed.length * 4);
    byte[] chunk = new byte[1 << 16];
    try {
      while (!inflater.finished()) {
        int n = inflater.inflate(chunk);
        if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
          throw new IllegalArgumentException("truncated deletion vector option");
        }
        out.write(chunk, 0, n);
      }
    } catch (DataFormatException e) {
      throw new IllegalArgumentException("undecodable deletion vector option", e);
    } finally {
      inflater.end();
    }
    return out.toByteArray();
  }
}
