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
