package dev.featurestore.core.ingest;

import java.io.Closeable;
import java.util.Optional;
import org.apache.iceberg.types.Type;

/** A streaming source of input rows. Not thread-safe. */
interface RowSource extends Closeable {
  /** The source kind reported in the snapshot summary: rows, objects, csv, json or parquet. */
  String kind();

  /** Reads the next row into {@code row}; false at the end of the input. */
  boolean next(RawRow row);

  /** The declared type of an input column, when the source has one (Parquet). */
  default Optional<Type> declaredType(String column) {
    return Optional.empty();
  }

  /** True when every value is text to be parsed (CSV): new column types are inferred from the text. */
  default boolean textValues() {
    return false;
  }

  /** True when input names may match columns by their snake_case form (Java properties). */
  default boolean snakeCaseNames() {
    return false;
  }

  @Override
  void close();
}
