package dev.featurestore.core.query;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.PartitionSpecBuilder;
import dev.featurestore.TableDefinition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/** Test tables for partitioning and pruning: id, ts, cat, score. */
public final class PruneTables {
  public static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "ts", Types.TimestampType.withZone()),
      Types.NestedField.optional(3, "cat", Types.StringType.get()),
      Types.NestedField.optional(4, "score", Types.DoubleType.get()));
  public static final OffsetDateTime BASE = OffsetDateTime.parse("2025-11-30T00:00:00Z");
  private static final String[] CATS = {"apple", "banana", "blueberry", "cherry", null};

  private PruneTables() {}

  public static FeatureTable create(FeatureStore store, String name, Function<PartitionSpecBuilder, PartitionSpecBuilder> spec) {
    return store.createTable(TableDefinition.builder("prune." + name, SCHEMA)
        .partitionBy(PartitionSpecBuilder.spec(spec)).build());
  }

  /** Row i: ts = BASE + 37 days * i + 5 hours * i, cat cycles (with nulls), score = i / 10 or null. */
  public static Record row(FeatureTable table, long i) {
    return TestTables.record(table, "id", i, "ts", ts(i), "cat", CATS[(int) (i % CATS.length)],
        "score", i % 7 == 0 ? null : i / 10.0);
  }

  public static OffsetDateTime ts(long i) {
    return BASE.plusDays(37 * i).plusHours(5 * i);
  }

  /** Appends rows [from, to) in one commit (one file per partition). */
  public static void append(FeatureTable table, long from, long to) {
    List<Record> rows = new ArrayList<>();
    for (long i = from; i < to; i++) {
      rows.add(row(table, i));
    }
    TestTables.append(table, rows);
  }

  /** The data files Iceberg's own scan planning keeps for the filter. */
  public static Set<String> planned(FeatureTable table, Expression filter) {
    Table iceberg = table.unwrap(Table.class);
    iceberg.refresh();
    Set<String> files = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = iceberg.newScan().filter(filter).planFiles()) {
      tasks.forEach(t -> files.add(t.file().location()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }
}
