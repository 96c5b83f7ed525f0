package dev.featurestore.cdc;

import dev.featurestore.FeatureStore;
import dev.featurestore.TableId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/** Reading the tables back, straight through Iceberg. */
final class CdcTestSupport {
  static final TableId LOG = TableId.of("cdc", "events");
  static final TableId STATE = TableId.of("cdc", "docs");

  private CdcTestSupport() {}

  static List<Record> rows(FeatureStore store, TableId id) {
    Table table = store.table(id).unwrap(Table.class);
    table.refresh();
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> it = IcebergGenerics.read(table).build()) {
      it.forEach(r -> rows.add(r.copy()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** Change-log sequence ids, in the order read. */
  static List<Long> sequences(FeatureStore store, TableId id) {
    List<Long> seqs = new ArrayList<>();
    for (Record r : rows(store, id)) {
      seqs.add((Long) r.getField("seq"));
    }
    return seqs;
  }

  /**
   * Data files and deletion-vector (Puffin) files under the table's data directory that no
   * snapshot of the table added: what a killed batch may have left.
   */
  static List<java.nio.file.Path> unreferencedDataFiles(FeatureStore store, TableId id) {
    Table table = store.table(id).unwrap(Table.class);
    table.refresh();
    java.util.Set<java.nio.file.Path> referenced = new java.util.HashSet<>();
    for (org.apache.iceberg.Snapshot snapshot : table.snapshots()) {
      for (org.apache.iceberg.DataFile file : snapshot.addedDataFiles(table.io())) {
        referenced.add(local(file.location()));
      }
      for (org.apache.iceberg.DeleteFile file : snapshot.addedDeleteFiles(table.io())) {
        referenced.add(local(file.location()));
      }
    }
    java.nio.file.Path data = local(table.location()).resolve("data");
    if (!java.nio.file.Files.exists(data)) {
      return List.of();
    }
    try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(data)) {
      return files.filter(p -> p.toString().endsWith(".parquet") || p.toString().endsWith(".puffin"))
          .filter(p -> !referenced.contains(p)).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static java.nio.file.Path local(String location) {
    String path = location.startsWith("file:") ? java.net.URI.create(location).getPath() : location;
    return java.nio.file.Path.of(path).toAbsolutePath().normalize();
  }

  /** Current state as collection/doc_id to the record. */
  static Map<String, Record> state(FeatureStore store, TableId id) {
    Map<String, Record> state = new TreeMap<>();
    for (Record r : rows(store, id)) {
      Record previous = state.put(r.getField("collection") + "/" + r.getField("doc_id"), r);
      if (previous != null) {
        throw new AssertionError("duplicate current-state row: " + r);
      }
    }
    return state;
  }
}
