package dev.featurestore.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Change-log files written from the entries themselves ({@link ChangeLogRows}) hold what Iceberg's
 * generic writer writes for the same rows: the same rows read back through Iceberg, the same
 * column metrics (counts, nulls, bounds) in the data file, which planning prunes by.
 */
class ChangeLogRowsTest {
  private static final long COMMIT_MILLIS = 1_764_000_000_123L;

  @TempDir Path dir;

  /** Entries of every operation, with and without transaction ids and images, multi-byte text, shared milliseconds. */
  private static List<Logged> entries() {
    List<Logged> entries = new ArrayList<>();
    String[] docIds = {"1", "é-2", "日本-3", "emoji-\uD83D\uDE00", "z"};
    for (int i = 1; i <= 500; i++) {
      CdcOperation op = CdcOperation.values()[i % 3];
      String docId = docIds[i % docIds.length] + "-" + i;
      String before = op == CdcOperation.INSERT ? null : Json.write(Map.of("id", i - 1, "name", "Zoë " + i));
      String after = op == CdcOperation.DELETE ? null : Json.write(Map.of("id", i, "name", "Ann \"" + i + "\"\n"));
      String txn = i % 4 == 0 ? null : "tx-" + (i / 10);
      CdcEntry e = new CdcEntry(i, op, i % 7 == 0 ? "orders" : "users", docId, "s", Optional.empty(), Optional.empty(),
          Optional.ofNullable(txn));
      entries.add(new Logged(e, COMMIT_MILLIS - 10_000 + i / 3, before, after));
    }
    return entries;
  }

  private static Record record(Table table, Logged l) {
    GenericRecord r = GenericRecord.create(table.schema());
    r.setField("op", l.entry.operation().code());
    r.setField("seq", l.seq());
    r.setField("shard", "s");
    r.setField("txn", l.entry.transactionId().orElse(null));
    r.setField("commit_time", OffsetDateTime.ofInstant(Instant.ofEpochMilli(COMMIT_MILLIS), ZoneOffset.UTC));
    r.setField("event_time", OffsetDateTime.ofInstant(Instant.ofEpochMilli(l.acceptedMillis), ZoneOffset.UTC));
    r.setField("collection", l.entry.collection());
    r.setField("doc_id", l.entry.docId());
    r.setField("before", l.beforeJson);
    r.setField("after", l.afterJson);
    return r;
  }

  private static List<Record> read(Table table) throws Exception {
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> it = IcebergGenerics.read(table).build()) {
      it.forEach(rows::add);
    }
    rows.sort(Comparator.comparingLong(r -> (Long) r.getField("seq")));
    return rows;
  }

  @Test
  void entriesWrittenDirectly_readBackAsTheGenericWritersRows_withTheSameMetrics() throws Exception {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      Table direct = store.createTable(TableDefinition.builder(TableId.of("cdc", "direct"), CdcTables.changeLogSchema())
          .build()).unwrap(Table.class);
      Table generic = store.createTable(TableDefinition.builder(TableId.of("cdc", "generic"), CdcTables.changeLogSchema())
          .build()).unwrap(Table.class);
      assertThat(ChangeLogRows.fits(direct)).isTrue();
      PendingFiles pending = new PendingFiles(dir, FsyncPolicy.NONE);
      Map<String, String> props = ChangeLogWriter.writerProperties("zstd");

      DataFileSink rows = new DataFileSink(direct, new ChangeLogRows(direct, props, "s", COMMIT_MILLIS),
          pending.start("direct"));
      DataFileSink records = new DataFileSink(generic, generic.schema(), props, pending.start("generic"));
      for (Logged l : entries()) {
        rows.write(l);
        records.write(record(generic, l));
      }
      List<DataFile> directFiles = rows.finish();
      List<DataFile> genericFiles = records.finish();
      assertThat(directFiles).hasSize(1);
      assertThat(genericFiles).hasSize(1);
      DataFile d = directFiles.get(0);
      DataFile g = genericFiles.get(0);
      assertThat(d.recordCount()).isEqualTo(500);
      assertThat(d.valueCounts()).isEqualTo(g.valueCounts());
      assertThat(d.nullValueCounts()).isEqualTo(g.nullValueCounts());
      assertThat(d.lowerBounds()).isEqualTo(g.lowerBounds());
      assertThat(d.upperBounds()).isEqualTo(g.upperBounds());
      assertThat(d.splitOffsets()).isEqualTo(g.splitOffsets());

      direct.newAppend().appendFile(d).commit();
      generic.newAppend().appendFile(g).commit();
      List<Record> expected = read(generic);
      assertThat(expected).hasSize(500);
      assertThat(read(direct)).isEqualTo(expected);
    }
  }

  @Test
  void aChangeLogWithAnotherColumn_isWrittenThroughTheGenericWriter() throws Exception {
    TableId log = TableId.of("cdc", "events");
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      try (CdcPipeline cdc = CdcPipeline.builder(store).changeLog(log).shardId("s").writeAheadLog(dir.resolve("wal"))
          .flushInterval(Duration.ZERO).build()) {
        cdc.insert("users", "1", Map.of("id", 1));
        cdc.flush();
      }
      Table table = store.table(log).unwrap(Table.class);
      table.updateSchema().addColumn("note", Types.StringType.get()).commit();
      assertThat(ChangeLogRows.fits(table)).isFalse();
      try (CdcPipeline cdc = CdcPipeline.builder(store).changeLog(log).shardId("s").writeAheadLog(dir.resolve("wal"))
          .flushInterval(Duration.ZERO).build()) {
        cdc.insert("users", "2", Map.of("id", 2));
        cdc.flush();
      }
      table.refresh();
      List<Record> rows = read(table);
      assertThat(rows).extracting(r -> r.getField("seq")).containsExactly(1L, 2L);
      assertThat(rows).extracting(r -> r.getField("after")).containsExactly("{\"id\":1}", "{\"id\":2}");
      assertThat(rows).extracting(r -> r.getField("note")).containsOnlyNulls();
    }
  }
}
