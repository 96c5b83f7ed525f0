package dev.featurestore.duckdb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.Ingest;
import dev.featurestore.IngestResult;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;

/** Helpers for the DuckDB ingest engine tests: two tables per case, one forced onto the Java path. */
final class DuckIngestSupport {
  static final String ENGINE = "featurestore.ingest.engine";

  private DuckIngestSupport() {}

  /** An ingest's outcome: its result, or the exception's class and message. */
  record Outcome(IngestResult result, String failure) {
    static Outcome of(FeatureTable table, Function<Ingest, Ingest> source) {
      try {
        return new Outcome(source.apply(table.ingest()).commit(), null);
      } catch (RuntimeException e) {
        return new Outcome(null, e.getClass().getSimpleName() + ": " + e.getMessage());
      }
    }
  }

  static FeatureTable table(FeatureStore store, String name, Schema schema, Function<Schema, PartitionSpec> spec,
      boolean javaPath) {
    TableDefinition.Builder definition = TableDefinition.builder(TableId.of("ingest", name), schema).partitionBy(spec);
    if (javaPath) {
      definition.property(ENGINE, "java");
    }
    return store.createTable(definition.build());
  }

  /** The engine named in the current snapshot's summary, if any. */
  static Optional<String> engine(FeatureTable table) {
    Table iceberg = table.unwrap(Table.class);
    iceberg.refresh();
    Snapshot snapshot = iceberg.currentSnapshot();
    return snapshot == null ? Optional.empty() : Optional.ofNullable(snapshot.summary().get(ENGINE));
  }

  /** Every row of the table's current snapshot, read by Iceberg's generic reader, as a multiset. */
  static Map<List<Object>, Integer> rows(FeatureTable table) {
    Table iceberg = table.unwrap(Table.class);
    iceberg.refresh();
    Map<List<Object>, Integer> rows = new HashMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(iceberg).build()) {
      for (Record record : records) {
        List<Object> row = new ArrayList<>();
        for (int i = 0; i < record.size(); i++) {
          row.add(record.get(i));
        }
        rows.merge(row, 1, Integer::sum);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /**
   * Reads every data file of the current snapshot on its own with Iceberg's generic Parquet
   * reader and checks that each of its rows belongs to the file's partition (Iceberg's own
   * transforms); returns the number of rows read.
   */
  static long checkPartitions(FeatureTable table) {
    Table iceberg = table.unwrap(Table.class);
    iceberg.refresh();
    Schema schema = iceberg.schema();
    long rows = 0;
    try (CloseableIterable<FileScanTask> tasks = iceberg.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        PartitionSpec spec = iceberg.specs().get(task.file().specId());
        PartitionKey key = new PartitionKey(spec, schema);
        InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
        long fileRows = 0;
        try (CloseableIterable<Record> records = Parquet.read(iceberg.io().newInputFile(task.file().location()))
            .project(schema)
            .createReaderFunc(type -> GenericParquetReaders.buildReader(schema, type))
            .build()) {
          for (Record record : records) {
            key.partition(wrapper.wrap(record));
            assertThat(equal(spec, key, task.file().partition()))
                .as("row %s of %s in partition %s", record, task.file().location(), task.file().partition())
                .isTrue();
            fileRows++;
          }
        }
        assertThat(fileRows).isEqualTo(task.file().recordCount());
        rows += fileRows;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  private static boolean equal(PartitionSpec spec, StructLike a, StructLike b) {
    for (int i = 0; i < spec.fields().size(); i++) {
      Object x = a.get(i, Object.class);
      Object y = b.get(i, Object.class);
      if (x instanceof CharSequence) {
        x = x.toString();
      }
      if (y instanceof CharSequence) {
        y = y.toString();
      }
      if (x == null ? y != null : !x.equals(y)) {
        return false;
      }
    }
    return true;
  }

  /** Every file under the table's location that is not metadata. */
  static List<Path> dataFiles(FeatureTable table) {
    Path root = dev.featurestore.core.storage.LocalFileIO.toPath(table.unwrap(Table.class).location());
    if (!Files.exists(root)) {
      return List.of();
    }
    try (Stream<Path> paths = Files.walk(root)) {
      return paths.filter(Files::isRegularFile)
          .filter(p -> !root.relativize(p).startsWith("metadata"))
          .sorted()
          .collect(Collectors.toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static <T> List<T> shuffled(List<T> list, java.util.Random random) {
    List<T> copy = new ArrayList<>(list);
    Collections.shuffle(copy, random);
    return copy;
  }
}
