package dev.featurestore.core.query;

import static dev.featurestore.core.query.DiffTables.liveFiles;
import static dev.featurestore.core.query.DiffTables.minus;
import static dev.featurestore.core.query.DiffTables.multiset;
import static dev.featurestore.core.query.TestTables.currentSnapshotId;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.RowDiff;
import dev.featurestore.TableDefinition;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Random appends, deletes (position deletes on v2, deletion vectors on v3, equality deletes on
 * both), copy-on-write overwrites and compactions; every diff between two of the snapshots must be
 * the multiset difference of full reads of both. With schema changes in between (a rename, a
 * widening, an added column), the full reads are Iceberg's own generic reader's, both through the
 * newer snapshot's schema.
 */
class RowDiffPropertyTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "format v{0}, seed {1}")
  @CsvSource({"2, 1", "2, 2", "3, 3", "3, 4"})
  void diff_isTheMultisetDifferenceOfFullReads(int formatVersion, long seed) {
    Random random = new Random(seed);
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(TableDefinition.builder("diff.p", RowDiffTest.SCHEMA)
          .formatVersion(formatVersion).build());
      List<Long> snapshots = new ArrayList<>();
      Set<String> withVector = new HashSet<>();
      List<String> log = new ArrayList<>();
      for (int op = 0; op < 12; op++) {
        List<FileScanTask> live = liveFiles(table);
        int kind = live.isEmpty() ? 0 : random.nextInt(5);
        switch (kind) {
          case 0 -> {
            List<Map<String, Object>> rows = new ArrayList<>();
            for (int i = random.nextInt(4) + 1; i > 0; i--) {
              long id = random.nextInt(12); // small range: duplicates across files
              rows.add(Map.of("id", id, "name", "n" + random.nextInt(3), "n", random.nextInt(3)));
            }
            table.append(rows);
            log.add("append " + rows.size());
          }
          case 1 -> {
            FileScanTask task = live.get(random.nextInt(live.size()));
            long position = random.nextInt((int) task.file().recordCount());
            if (formatVersion == 2) {
              TestTables.positionDelete(table, task.file(), position);
              log.add("position delete");
            } else if (withVector.add(task.file().location())) {
              DiffTables.deletionVector(table, task.file(), position);
              log.add("deletion vector");
            } else {
              continue;
            }
          }
          case 2 -> {
            long id = random.nextInt(12);
            TestTables.equalityDelete(table, "id", id);
            log.add("equality delete " + id);
          }
          case 3 -> {
            FileScanTask task = live.get(random.nextInt(live.size()));
            List<Record> rows = new ArrayList<>(DiffTables.liveRows(table, task));
            if (!rows.isEmpty()) {
              rows.remove(random.nextInt(rows.size()));
            }
            if (!rows.isEmpty()) {
              rows.get(random.nextInt(rows.size())).setField("n", random.nextInt(3));
            }
            DiffTables.overwrite(table, task.file(), rows);
            log.add("overwrite");
          }
          default -> {
            table.maintenance().compact().execute();
            log.add("compact");
          }
        }
        snapshots.add(currentSnapshotId(table));
      }
      for (int pair = 0; pair < 10; pair++) {
        long from = snapshots.get(random.nextInt(snapshots.size()));
        long to = snapshots.get(random.nextInt(snapshots.size()));
        RowDiff diff = table.query().asOfSnapshot(to).diff(from);
        var before = multiset(table.query().asOfSnapshot(from).execute());
        var after = multiset(table.query().asOfSnapshot(to).execute());
        String as = "ops " + log + ", diff " + snapshots.indexOf(from) + " -> " + snapshots.indexOf(to);
        assertThat(diff.addedCount()).as(as).isEqualTo(DiffTables.size(minus(after, before)));
        assertThat(diff.removedCount()).as(as).isEqualTo(DiffTables.size(minus(before, after)));
        assertThat(multiset(diff.added())).as(as).isEqualTo(minus(after, before));
        assertThat(multiset(diff.removed())).as(as).isEqualTo(minus(before, after));
      }
    }
  }

  @ParameterizedTest(name = "format v{0}, seed {1}")
  @CsvSource({"2, 5", "3, 6", "3, 7"})
  void diff_acrossSchemaEvolution_isTheDifferenceOfIcebergsFullReadsThroughTheNewerSchema(int formatVersion, long seed) {
    Random random = new Random(seed);
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(TableDefinition.builder("diff.evolving", RowDiffTest.SCHEMA)
          .formatVersion(formatVersion).build());
      Table iceberg = table.unwrap(Table.class);
      List<Long> snapshots = new ArrayList<>();
      Set<String> withVector = new HashSet<>();
      List<String> log = new ArrayList<>();
      // the schema changes, one each, at fixed points between random operations
      Map<Integer, Runnable> changes = Map.of(
          3, () -> table.evolveSchema().renameColumn("name", "label").commit(),
          6, () -> table.evolveSchema().widenColumn("n", Types.LongType.get()).commit(),
          9, () -> table.evolveSchema().addColumn("extra", Types.StringType.get()).commit());
      for (int op = 0; op < 14; op++) {
        if (changes.containsKey(op)) {
          changes.get(op).run();
          log.add("schema change");
        }
        List<FileScanTask> live = liveFiles(table);
        int kind = live.isEmpty() || op == 0 ? 0 : random.nextInt(5);
        Schema schema = iceberg.schema();
        switch (kind) {
          case 0 -> {
            List<Map<String, Object>> rows = new ArrayList<>();
            for (int i = random.nextInt(4) + 1; i > 0; i--) {
              Map<String, Object> row = new java.util.HashMap<>();
              row.put("id", (long) random.nextInt(12));
              row.put(schema.findField(2).name(), "n" + random.nextInt(3));
              row.put("n", number(schema, random.nextInt(3)));
              if (schema.findField("extra") != null) {
                row.put("extra", "x" + random.nextInt(2));
              }
              rows.add(row);
            }
            table.append(rows);
            log.add("append " + rows.size());
          }
          case 1 -> {
            FileScanTask task = live.get(random.nextInt(live.size()));
            long position = random.nextInt((int) task.file().recordCount());
            if (formatVersion == 2) {
              TestTables.positionDelete(table, task.file(), position);
              log.add("position delete");
            } else if (withVector.add(task.file().location())) {
              DiffTables.deletionVector(table, task.file(), position);
              log.add("deletion vector");
            } else {
              continue;
            }
          }
          case 2 -> {
            long id = random.nextInt(12);
            TestTables.equalityDelete(table, "id", id);
            log.add("equality delete " + id);
          }
          case 3 -> {
            FileScanTask task = live.get(random.nextInt(live.size()));
            List<Record> rows = new ArrayList<>(DiffTables.liveRows(table, task));
            if (!rows.isEmpty()) {
              rows.remove(random.nextInt(rows.size()));
            }
            if (!rows.isEmpty()) {
              rows.get(random.nextInt(rows.size())).setField("n", number(schema, random.nextInt(3)));
            }
            DiffTables.overwrite(table, task.file(), rows);
            log.add("overwrite");
          }
          default -> {
            table.maintenance().compact().execute();
            log.add("compact");
          }
        }
        snapshots.add(currentSnapshotId(table));
      }
      iceberg.refresh();
      for (int pair = 0; pair < 12; pair++) {
        long from = snapshots.get(random.nextInt(snapshots.size()));
        long to = snapshots.get(random.nextInt(snapshots.size()));
        Schema fromSchema = iceberg.schemas().get(iceberg.snapshot(from).schemaId());
        Schema toSchema = iceberg.schemas().get(iceberg.snapshot(to).schemaId());
        Schema newer = fromSchema.schemaId() > toSchema.schemaId() ? fromSchema : toSchema;
        RowDiff diff = table.query().asOfSnapshot(to).diff(from);
        var before = DiffTables.icebergRead(table, from, newer);
        var after = DiffTables.icebergRead(table, to, newer);
        String as = "ops " + log + ", diff " + snapshots.indexOf(from) + " -> " + snapshots.indexOf(to);
        assertThat(diff.schema().asStruct()).as(as).isEqualTo(newer.asStruct());
        assertThat(diff.addedCount()).as(as).isEqualTo(DiffTables.size(minus(after, before)));
        assertThat(diff.removedCount()).as(as).isEqualTo(DiffTables.size(minus(before, after)));
        assertThat(multiset(diff.added())).as(as).isEqualTo(minus(after, before));
        assertThat(multiset(diff.removed())).as(as).isEqualTo(minus(before, after));
      }
    }
  }

  /** {@code value} as the current type of column n: int, or long once widened. */
  private static Object number(Schema schema, int value) {
    return schema.findType("n").equals(Types.LongType.get()) ? (Object) (long) value : (Object) value;
  }
}
