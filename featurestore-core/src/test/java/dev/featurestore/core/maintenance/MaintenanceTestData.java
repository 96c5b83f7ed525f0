package dev.featurestore.core.maintenance;

import static dev.featurestore.core.query.TestTables.event;

import dev.featurestore.FeatureTable;
import dev.featurestore.core.query.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/** Test data for maintenance: small appends written straight through Iceberg. */
final class MaintenanceTestData {
  private MaintenanceTestData() {}

  /** Appends {@code rows} rows with entity ids from {@code firstId}, on one day; one data file. */
  static List<DataFile> appendRows(FeatureTable table, long firstId, int rows) {
    return appendRows(table, firstId, rows, "2026-01-01T00:00:00Z");
  }

  static List<DataFile> appendRows(FeatureTable table, long firstId, int rows, String time) {
    List<Record> records = new ArrayList<>(rows);
    for (int i = 0; i < rows; i++) {
      records.add(event(table, firstId + i, time, (double) (firstId + i), 1.0));
    }
    return TestTables.append(table, records);
  }

  /** Locations of the data files of the current snapshot. */
  static List<String> liveDataFiles(FeatureTable featureTable) {
    Table table = featureTable.unwrap(Table.class);
    table.refresh();
    List<String> files = new ArrayList<>();
    if (table.currentSnapshot() == null) {
      return files;
    }
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        files.add(task.file().location());
        task.deletes().forEach(d -> files.add(d.location()));
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return files;
  }

  static boolean exists(String location) {
    return Files.exists(Path.of(location.startsWith("file:") ? java.net.URI.create(location).getPath() : location));
  }
}
