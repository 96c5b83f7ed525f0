package dev.featurestore.core.ingest;

import dev.featurestore.FeatureTable;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.storage.LocalFileIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/** Reads tables back with Iceberg's own reader, and lists their data files on disk. */
final class IngestTestSupport {
  private IngestTestSupport() {}

  static TableDefinition events() {
    return TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema())
        .partitionBy(s -> PartitionSpec.builderFor(s).day("event_time").build())
        .build();
  }

  static Table iceberg(FeatureTable table) {
    table.refresh();
    return table.unwrap(Table.class);
  }

  /** Every row of the current snapshot, sorted by the first column then the rest as text. */
  static List<Record> read(FeatureTable table) {
    Table iceberg = iceberg(table);
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(iceberg).build()) {
      records.forEach(r -> rows.add(r.copy()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    rows.sort(Comparator.comparing(Record::toString));
    return rows;
  }

  static List<Record> readSnapshot(FeatureTable table, long snapshotId) {
    Table iceberg = iceberg(table);
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(iceberg).useSnapshot(snapshotId).build()) {
      records.forEach(r -> rows.add(r.copy()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    rows.sort(Comparator.comparing(Record::toString));
    return rows;
  }

  /** The current snapshot id, or -1 when the table has none. */
  static long currentSnapshotId(FeatureTable table) {
    Snapshot current = iceberg(table).currentSnapshot();
    return current == null ? -1 : current.snapshotId();
  }

  static int snapshotCount(FeatureTable table) {
    int n = 0;
    for (Snapshot ignored : iceberg(table).snapshots()) {
      n++;
    }
    return n;
  }

  /** Every regular file under the table's data/ directory. */
  static List<Path> dataFilesOnDisk(FeatureTable table) {
    Path data = LocalFileIO.toPath(table.location()).resolve("data");
    if (!Files.exists(data)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(data)) {
      return files.filter(Files::isRegularFile).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
