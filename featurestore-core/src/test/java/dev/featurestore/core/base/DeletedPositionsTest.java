package dev.featurestore.core.base;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureTable;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.storage.ForwardingInputFile;
import dev.featurestore.core.storage.ForwardingSeekableInputStream;
import dev.featurestore.core.testing.InputInterceptingFileIO;
import dev.featurestore.core.testing.StoreTest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How {@link DeletedPositions} groups the deletion vectors of one Puffin file into reads: vectors
 * lying together are one read, a gap wider than allowed or a range longer than allowed starts a
 * new one, and every vector comes out of its range with exactly its data file's positions.
 */
class DeletedPositionsTest extends StoreTest {
  private static final long[] DELETED = {1, 3, 8};

  Table table;
  /** The four data files' tasks, in the order of their vectors in the one Puffin file. */
  List<FileScanTask> tasks;
  String puffin;

  @BeforeEach
  void fourVectorsInOnePuffinFile() throws IOException {
    openLocalStore();
    FeatureTable featureTable = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID,
        SyntheticFeatures.schema()).formatVersion(3).build());
    table = featureTable.unwrap(Table.class);
    List<DataFile> files = new ArrayList<>();
    for (int f = 0; f < 4; f++) {
      List<Record> rows = new ArrayList<>();
      for (long i = 0; i < 10; i++) {
        rows.add(TestTables.event(featureTable, 100L * f + i, "2026-01-01T00:00:00Z", (double) i, null));
      }
      files.addAll(TestTables.append(featureTable, rows));
    }
    table.refresh();
    PositionDeletes deletes = new PositionDeletes(table, location -> List.of(), table.io());
    for (DataFile file : files) {
      for (long position : DELETED) {
        deletes.delete(file, position);
      }
    }
    PositionDeletes.Written written = deletes.finish();
    written.addTo(table.newRowDelta().validateFromSnapshot(table.currentSnapshot().snapshotId())).commit();
    table.refresh();

    tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
      planned.forEach(tasks::add);
    }
    tasks.sort(Comparator.comparingLong(task -> vector(task).contentOffset()));
    assertThat(tasks).hasSize(4).allSatisfy(task -> assertThat(task.deletes()).hasSize(1));
    puffin = vector(tasks.get(0)).location();
    assertThat(tasks).allSatisfy(task -> assertThat(vector(task).location()).isEqualTo(puffin));
    // the same positions in every file: vectors of one size, so ranges can be sized in vectors
    assertThat(tasks).extracting(task -> vector(task).contentSizeInBytes()).containsOnly(size(0));
  }

  private static DeleteFile vector(FileScanTask task) {
    return task.deletes().get(0);
  }

  private long offset(int vector) {
    return vector(tasks.get(vector)).contentOffset();
  }

  private long size(int vector) {
    return vector(tasks.get(vector)).contentSizeInBytes();
  }

  private long end(int vector) {
    return offset(vector) + size(vector);
  }

  /** Takes each task's positions (last task first) and checks them; returns the reads of the Puffin file. */
  private List<String> readsTaking(List<FileScanTask> read, int maxRange, int maxGap) {
    Recording io = new Recording(table.io());
    DeletedPositions positions = new DeletedPositions(io, read, maxRange, maxGap);
    assertThat(io.reads).as("nothing is read up front").isEmpty();
    for (int t = read.size() - 1; t >= 0; t--) {
      FileScanTask task = read.get(t);
      DeletedPositions.Cursor cursor = positions.of(task);
      List<Long> deleted = new ArrayList<>();
      for (long position = 0; position < 10; position++) {
        if (cursor.isDeleted(position)) {
          deleted.add(position);
        }
      }
      assertThat(deleted).as(task.file().location()).containsExactly(1L, 3L, 8L);
      assertThat(cursor.count()).isEqualTo(DELETED.length);
    }
    return io.reads.stream().filter(r -> r.startsWith(puffin + "@")).toList();
  }

  private String read(long from, long to) {
    return puffin + "@" + from + "+" + (to - from);
  }

  @Test
  void vectorsLyingTogether_areOneRead() {
    assertThat(readsTaking(tasks, DeletedPositions.MAX_RANGE, DeletedPositions.MAX_GAP))
        .containsExactly(read(offset(0), end(3)));
  }

  @Test
  void aGapUpToTheLimit_isReadThrough_aWiderOneStartsANewRange() {
    // the third vector's data file is not read: a gap of one vector between the second and the fourth
    List<FileScanTask> read = List.of(tasks.get(0), tasks.get(1), tasks.get(3));
    long gap = offset(3) - end(1);
    assertThat(gap).isEqualTo(size(2));

    assertThat(readsTaking(read, DeletedPositions.MAX_RANGE, (int) gap))
        .containsExactly(read(offset(0), end(3)));
    assertThat(readsTaking(read, DeletedPositions.MAX_RANGE, (int) gap - 1))
        .containsExactlyInAnyOrder(read(offset(0), end(1)), read(offset(3), end(3)));
  }

  @Test
  void aRangeIsNoLongerThanTheLimit() {
    int twoVectors = (int) (end(1) - offset(0));
    assertThat(readsTaking(tasks, twoVectors, DeletedPositions.MAX_GAP))
        .containsExactlyInAnyOrder(read(offset(0), end(1)), read(offset(2), end(3)));
    assertThat(readsTaking(tasks, twoVectors - 1, DeletedPositions.MAX_GAP))
        .containsExactlyInAnyOrder(read(offset(0), end(0)), read(offset(1), end(1)), read(offset(2), end(2)),
            read(offset(3), end(3)));
  }

  /** The table's FileIO, recording each positioned read as "location@position+length". */
  private static final class Recording extends InputInterceptingFileIO {
    final List<String> reads = new ArrayList<>();

    Recording(FileIO delegate) {
      super(delegate, Ownership.BORROWED);
    }

    @Override
    protected InputFile intercept(InputFile file) {
      return new ForwardingInputFile(file) {
        @Override
        public SeekableInputStream newStream() {
          return new ForwardingSeekableInputStream(super.newStream()) {
            @Override
            public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
              reads.add(location() + "@" + position + "+" + length);
              super.readFully(position, buffer, offset, length);
            }
          };
        }
      };
    }
  }
}
