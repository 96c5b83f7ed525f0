package dev.featurestore.core.base;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureTable;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.testing.StoreTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Position deletes as the library writes them: deletion vectors on format 3, file-scoped
 * position-delete files on format 2; each data file keeps one delete file however often its rows
 * are deleted; Iceberg's own reader agrees; a concurrent compaction fails the commit.
 */
class PositionDeletesTest extends StoreTest {

  private FeatureTable table(int formatVersion) {
    openLocalStore();
    return store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema())
        .formatVersion(formatVersion).build());
  }

  private static List<Record> events(FeatureTable table, long from, int count) {
    List<Record> rows = new ArrayList<>();
    for (long i = from; i < from + count; i++) {
      rows.add(TestTables.event(table, i, "2026-01-01T00:00:00Z", (double) i, null));
    }
    return rows;
  }

  private static List<Long> ids(Table table) throws IOException {
    table.refresh();
    List<Long> ids = new ArrayList<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      rows.forEach(r -> ids.add((Long) r.getField("entity_id")));
    }
    ids.sort(null);
    return ids;
  }

  private static Map<String, List<DeleteFile>> deletesByFile(Table table) throws IOException {
    table.refresh();
    Map<String, List<DeleteFile>> deletes = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        deletes.put(task.file().location(), task.deletes());
      }
    }
    return deletes;
  }

  private static void commit(Table table, PositionDeletes.Written written) {
    RowDelta delta = table.newRowDelta().validateFromSnapshot(table.currentSnapshot().snapshotId());
    written.addTo(delta).commit();
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void deletesRowsMergingEarlierDeletesOfTheSameFile(int formatVersion) throws IOException {
    FeatureTable featureTable = table(formatVersion);
    Table table = featureTable.unwrap(Table.class);
    DataFile file = TestTables.append(featureTable, events(featureTable, 0, 10)).get(0);

    PositionDeletes first = new PositionDeletes(table, deletesByFile(table)::get, table.io());
    first.delete(file, 1);
    first.delete(file, 3);
    PositionDeletes.Written written = first.finish();
    assertThat(written.replaced()).isEmpty();
    assertThat(written.added()).singleElement().satisfies(d -> {
      assertThat(d.content()).isEqualTo(FileContent.POSITION_DELETES);
      assertThat(d.format()).isEqualTo(formatVersion == 3 ? FileFormat.PUFFIN : FileFormat.PARQUET);
      assertThat(d.recordCount()).isEqualTo(2);
    });
    commit(table, written);
    assertThat(ids(table)).containsExactly(0L, 2L, 4L, 5L, 6L, 7L, 8L, 9L);

    Map<String, List<DeleteFile>> before = deletesByFile(table);
    PositionDeletes second = new PositionDeletes(table, before::get, table.io());
    second.delete(file, 3); // again: already deleted
    second.delete(file, 8);
    PositionDeletes.Written merged = second.finish();
    assertThat(merged.replaced()).extracting(DeleteFile::location)
        .containsExactlyElementsOf(before.get(file.location()).stream().map(DeleteFile::location).toList());
    assertThat(merged.added()).singleElement().satisfies(d -> assertThat(d.recordCount()).isEqualTo(3));
    commit(table, merged);

    assertThat(ids(table)).containsExactly(0L, 2L, 4L, 5L, 6L, 7L, 9L);
    assertThat(deletesByFile(table).get(file.location())).as("one delete file per data file").hasSize(1);
  }

  @Test
  void commitFailsWhenTheDataFileWasCompactedAway() throws IOException {
    FeatureTable featureTable = table(3);
    Table table = featureTable.unwrap(Table.class);
    DataFile file = TestTables.append(featureTable, events(featureTable, 0, 5)).get(0);
    long base = table.currentSnapshot().snapshotId();
    PositionDeletes deletes = new PositionDeletes(table, deletesByFile(table)::get, table.io());
    deletes.delete(file, 0);
    PositionDeletes.Written written = deletes.finish();

    // a concurrent rewrite replaces the file the vector points at
    DataFile copy = TestTables.append(featureTable, events(featureTable, 0, 5)).get(0);
    table.newRewrite().deleteFile(file).deleteFile(copy).addFile(copy).commit();
    table.refresh();

    RowDelta delta = table.newRowDelta().validateFromSnapshot(base);
    assertThatThrownBy(() -> written.addTo(delta).commit()).isInstanceOf(ValidationException.class);
    written.delete(table.io());
    for (DeleteFile d : written.added()) {
      assertThat(Path.of(java.net.URI.create(d.location()).getPath())).doesNotExist();
    }
    assertThat(ids(table)).as("the copy, no vector applied").containsExactly(0L, 1L, 2L, 3L, 4L);
  }

  @Test
  void rejectsPositionsOutsideTheFile() throws IOException {
    FeatureTable featureTable = table(3);
    Table table = featureTable.unwrap(Table.class);
    DataFile file = TestTables.append(featureTable, events(featureTable, 0, 5)).get(0);
    PositionDeletes deletes = new PositionDeletes(table, path -> List.of(), table.io());
    assertThatThrownBy(() -> deletes.delete(file, 5)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> deletes.delete(file, -1)).isInstanceOf(IllegalArgumentException.class);
    assertThat(deletes.isEmpty()).isTrue();
    assertThat(deletes.finish().isEmpty()).isTrue();
  }

  @Test
  void aFailedWriteLeavesNoFileBehind() throws IOException {
    FeatureTable featureTable = table(3);
    Table table = featureTable.unwrap(Table.class);
    DataFile file = TestTables.append(featureTable, events(featureTable, 0, 5)).get(0);
    PositionDeletes deletes = new PositionDeletes(table, path -> {
      throw new UncheckedIOException(new IOException("previous deletes unreadable"));
    }, table.io());
    deletes.delete(file, 2);
    Path data = Path.of(java.net.URI.create(table.location()).getPath()).resolve("data");
    long before = count(data);
    assertThatThrownBy(deletes::finish).hasMessageContaining("previous deletes unreadable");
    assertThat(count(data)).isEqualTo(before);
  }

  private static long count(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).count();
    }
  }
}
