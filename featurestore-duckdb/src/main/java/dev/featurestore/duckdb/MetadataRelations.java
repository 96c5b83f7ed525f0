package dev.featurestore.duckdb;

import static dev.featurestore.duckdb.DuckTypes.identifier;
import static dev.featurestore.duckdb.DuckTypes.quote;

import dev.featurestore.FeatureStore;
import dev.featurestore.MetadataTable;
import dev.featurestore.NotFoundException;
import dev.featurestore.QueryResult;
import dev.featurestore.Row;
import dev.featurestore.StorageException;
import dev.featurestore.TableId;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.duckdb.DuckDBConnection;

/**
 * The metadata tables in SQL: a table name {@code "<namespace>.<table>$<metadata table>"} (for
 * example {@code "features.events$files"}) or {@code "$operations"} (the store-wide operations
 * log), quoted as one identifier. The rows are read through the API
 * ({@link dev.featurestore.FeatureTable#metadata}), written to a Parquet file in the query's own
 * temporary directory (which DuckDB may read; nothing else is opened) and registered as a view of
 * that name, so the types are the metadata table's (timestamps with zone, structs, maps, lists).
 * A name must match the pattern exactly: its parts are table-id parts (letters, digits, underscores),
 * so no quote, dot or {@code $} elsewhere ever reaches SQL.
 */
final class MetadataRelations {
  private static final Pattern NAME = Pattern.compile(
      "(?:([A-Za-z_][A-Za-z0-9_]{0,127})\\.([A-Za-z_][A-Za-z0-9_]{0,127}))?\\$([A-Za-z_]+)");

  private MetadataRelations() {}

  /** A parsed metadata relation: the table (empty for the store-wide log) and which metadata table. */
  record Name(String text, Optional<TableId> table, MetadataTable kind) {}

  /**
   * The metadata relation {@code name} names, or empty if it is not of the form (then it is an
   * ordinary unknown table).
   *
   * @throws NotFoundException if the form matches but the metadata table is unknown, or a
   *     store-wide name other than {@code $operations}
   */
  static Optional<Name> parse(String name) {
    Matcher m = NAME.matcher(name);
    if (!m.matches()) {
      return Optional.empty();
    }
    String kindName = m.group(3).toLowerCase(Locale.ROOT);
    MetadataTable kind = Arrays.stream(MetadataTable.values()).filter(k -> k.sqlName().equals(kindName)).findFirst()
        .orElseThrow(() -> new NotFoundException("Cannot run query: unknown metadata table (one of "
            + Arrays.stream(MetadataTable.values()).map(MetadataTable::sqlName).collect(Collectors.joining(", "))
            + "): " + name));
    if (m.group(1) == null) {
      if (kind != MetadataTable.OPERATIONS) {
        throw new NotFoundException("Cannot run query: only $operations is store-wide (name the table as "
            + "\"<namespace>.<table>$" + kind.sqlName() + "\"): " + name);
      }
      return Optional.of(new Name(name, Optional.empty(), kind));
    }
    return Optional.of(new Name(name, Optional.of(TableId.of(m.group(1), m.group(2))), kind));
  }

  /** Reads the metadata rows and registers them as a temporary view named {@code name.text()}. */
  static void register(DuckDBConnection connection, FeatureStore store, Name name, Path directory) throws SQLException {
    Path file = directory.resolve("metadata-" + UUID.randomUUID() + ".parquet");
    try (QueryResult rows = name.table().isPresent()
        ? store.table(name.table().get()).metadata(name.kind()) : store.operations()) {
      write(rows, file);
    }
    try (Statement statement = connection.createStatement()) {
      statement.execute("CREATE OR REPLACE TEMP VIEW " + identifier(name.text()) + " AS SELECT * FROM read_parquet("
          + quote(file.toString()) + ")");
    }
  }

  private static void write(QueryResult rows, Path file) {
    Schema schema = rows.schema();
    try (FileAppender<Record> out = Parquet.write(Files.localOutput(file.toFile()))
        .schema(schema)
        .createWriterFunc(GenericParquetWriter::create)
        .set(TableProperties.PARQUET_COMPRESSION, "uncompressed")
        .build()) {
      for (Row row : rows) {
        GenericRecord record = GenericRecord.create(schema);
        for (int i = 0; i < row.size(); i++) {
          record.set(i, row.get(i));
        }
        out.add(record);
      }
    } catch (IOException e) {
      throw new StorageException("Cannot write metadata table for SQL: " + e.getMessage() + ": " + file, e);
    }
  }
}
