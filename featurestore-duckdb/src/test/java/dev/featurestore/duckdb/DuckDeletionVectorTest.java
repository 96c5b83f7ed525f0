package dev.featurestore.duckdb;

import static dev.featurestore.core.query.TestTables.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.QueryResult;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.query.TestTables;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.ContentFileUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Format v3 deletion vectors (Puffin blobs written with Iceberg's {@link BaseDVFileWriter}): the
 * adapter loads their positions through Iceberg and anti-joins them, and every snapshot equals
 * Iceberg's reader.
 */
class DuckDeletionVectorTest {
  @TempDir
  Path dir;

  FeatureStore store;
  SqlEngine sql;
  FeatureTable table;
  Table iceberg;
  int taskId = 0;

  @BeforeEach
  void open() {
    store = FeatureStore.openLocal(dir.resolve("store"));
    sql = DuckQueries.builder(store).threads(1).memoryLimit("512MB").build();
    table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema())
        .formatVersion(3).build());
    iceberg = table.unwrap(Table.class);
  }

  @AfterEach
  void close() {
    sql.close();
    store.close();
  }

  private DataFile append(int from, int count) {
    List<Record> rows = new ArrayList<>();
    for (int i = from; i < from + count; i++) {
      rows.add(event(table, i, "2026-01-01T10:00:00Z", (double) i, null));
    }
    return TestTables.append(table, rows).get(0);
  }

  /** Writes one DV per data file (merged with the file's current DV, which it replaces) and commits. */
  private List<DeleteFile> deleteWithDv(Map<DataFile, long[]> positions, List<DeleteFile> replaced) throws IOException {
    iceberg.refresh();
    BaseDeleteLoader loader = new BaseDeleteLoader(f -> iceberg.io().newInputFile(f));
    Function<String, PositionDeleteIndex> previous = location -> {
      List<DeleteFile> old = replaced.stream().filter(d -> location.equals(d.referencedDataFile())).toList();
      return old.isEmpty() ? null : loader.loadPositionDeletes(old, location);
    };
    OutputFileFactory files = OutputFileFactory.builderFor(iceberg, 1, ++taskId).format(FileFormat.PUFFIN).build();
    BaseDVFileWriter writer = new BaseDVFileWriter(files, previous);
    try (writer) {
      positions.forEach((file, list) -> {
        for (long pos : list) {
          writer.delete(file.location(), pos, iceberg.spec(), null);
        }
      });
    }
    // the DVs were written against the current snapshot: DVs committed before it are not concurrent
    RowDelta delta = iceberg.newRowDelta().validateFromSnapshot(iceberg.currentSnapshot().snapshotId());
    writer.result().deleteFiles().forEach(delta::addDeletes);
    replaced.forEach(delta::removeDeletes);
    delta.commit();
    table.refresh();
    return writer.result().deleteFiles();
  }

  @Test
  void deletionVectors_matchIcebergReader_atEverySnapshot() throws Exception {
    assertThat(table.formatVersion()).isEqualTo(3);
    DataFile a = append(0, 40);
    DataFile b = append(100, 40);
    List<Long> snapshots = new ArrayList<>();
    snapshots.add(TestTables.currentSnapshotId(table));

    List<DeleteFile> dvs = deleteWithDv(Map.of(a, new long[] {0, 3, 7}, b, new long[] {39}), List.of());
    assertThat(dvs).hasSize(2).allSatisfy(dv -> assertThat(ContentFileUtil.isDV(dv)).isTrue());
    assertThat(dvs).extracting(DeleteFile::format).containsOnly(FileFormat.PUFFIN);
    snapshots.add(TestTables.currentSnapshotId(table));

    // a second DV for b replaces the first and keeps its positions
    DeleteFile dvOfB = dvs.stream().filter(d -> d.referencedDataFile().equals(b.location())).findFirst().orElseThrow();
    deleteWithDv(Map.of(b, new long[] {1, 2}), List.of(dvOfB));
    snapshots.add(TestTables.currentSnapshotId(table));

    for (long id : snapshots) {
      compare(table.query().asOfSnapshot(id), table.query().asOfSnapshot(id));
    }
    try (SqlResult result = sql.query("SELECT entity_id FROM t ORDER BY entity_id").table("t", table).execute()) {
      List<Object> ids = result.toList().stream().map(r -> r.get("entity_id")).toList();
      assertThat(ids).hasSize(80 - 3 - 3).doesNotContain(0L, 3L, 7L, 101L, 102L, 139L).contains(1L, 100L, 103L);
      TableScanStats stats = result.stats().tables().get(0);
      assertThat(stats.plannedDeleteFiles()).isEqualTo(2); // one DV per data file
    }
  }

  private void compare(dev.featurestore.TimeTravelQuery version, dev.featurestore.TimeTravelQuery oracle) {
    List<Map<String, Object>> expected;
    try (QueryResult result = oracle.execute()) {
      expected = new ArrayList<>(result.toList());
    }
    List<Map<String, Object>> actual = new ArrayList<>(sql.query("SELECT * FROM t").table("t", version).toList());
    Comparator<Map<String, Object>> order = Comparator.comparing(r -> (Long) r.get("entity_id"));
    expected.sort(order);
    actual.sort(order);
    assertThat(actual).as("%s", version).isEqualTo(expected);
  }
}
