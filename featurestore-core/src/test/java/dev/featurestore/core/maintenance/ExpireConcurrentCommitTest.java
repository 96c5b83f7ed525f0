package dev.featurestore.core.maintenance;

import static dev.featurestore.core.maintenance.MaintenanceTestData.appendRows;
import static dev.featurestore.core.maintenance.MaintenanceTestData.exists;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.ExpireResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.StorageException;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.storage.LocalFileIO;
import dev.featurestore.core.testing.InputInterceptingFileIO;
import dev.featurestore.core.testing.LocalStoreTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.InputFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Expiry racing another store's commit: the files are planned before the expiry commits, and a
 * commit attempt whose base has other snapshots than the plan (another writer committed meanwhile,
 * Iceberg retries from its metadata) is planned again before it commits. The other writer is a
 * second store on the same root, which appends while the expiry reads its first manifest list.
 */
class ExpireConcurrentCommitTest extends LocalStoreTest {
  /** The local FileIO, running a hook (once) when the first manifest list is opened for reading. */
  static final class HookedIO extends InputInterceptingFileIO {
    final AtomicReference<Runnable> onManifestList = new AtomicReference<>();

    HookedIO() {
      super(new LocalFileIO(), Ownership.OWNED);
    }

    @Override
    protected InputFile intercept(InputFile file) {
      String location = file.location();
      if (location.substring(location.lastIndexOf('/') + 1).startsWith("snap-")) {
        Runnable hook = onManifestList.getAndSet(null);
        if (hook != null) {
          hook.run();
        }
      }
      return file;
    }
  }

  private final HookedIO io = new HookedIO();
  private FeatureStore expiring;
  private FeatureTable other;
  private FeatureTable events;
  private final List<Long> snapshots = new ArrayList<>();
  private final List<DataFile> files = new ArrayList<>();

  @BeforeEach
  void setUp() {
    other = TestTables.createEvents(store, false);
    for (int i = 0; i < 3; i++) {
      files.addAll(appendRows(other, i * 10L, 10));
      snapshots.add(current(other).currentSnapshot().snapshotId());
      TestTables.tick();
    }
    Table iceberg = other.unwrap(Table.class);
    iceberg.newDelete().deleteFile(files.get(0)).commit(); // file 0 unreachable once the appends expire
    snapshots.add(current(other).currentSnapshot().snapshotId());
    expiring = FeatureStore.builder().root(dir).fileIO(io).build();
    events = expiring.table(other.id());
  }

  @AfterEach
  void closeExpiring() {
    expiring.close();
  }

  @Test
  void anAppendCommittedWhileTheExpiryPlans_isPlannedAgain_andItsFilesKept() {
    List<DataFile> appended = new ArrayList<>();
    io.onManifestList.set(() -> appended.addAll(appendRows(other, 100, 10)));

    ExpireResult result = events.maintenance().expireSnapshots().retainLast(1).execute();

    long append = current(other).currentSnapshot().snapshotId();
    assertThat(append).isNotIn(snapshots);
    assertThat(result.expiredSnapshotIds()).as("retainLast(1) from the base with the append").isEqualTo(snapshots);
    assertThat(current(other).snapshots()).extracting(Snapshot::snapshotId).containsExactly(append);
    assertThat(result.deletedManifestLists()).as("the plan before the append knew 3 expired lists").isEqualTo(4);
    assertThat(result.deletedDataFiles()).isEqualTo(1);
    assertThat(exists(files.get(0).location())).isFalse();
    assertThat(files.subList(1, 3)).allMatch(f -> exists(f.location()));
    assertThat(appended).hasSize(1).allMatch(f -> exists(f.location()));
    assertThat(other.query().count()).isEqualTo(30);
  }

  @Test
  void anAppendCommittedWhileTheExpiryPlans_withAnUnreadableManifestList_failsTyped_withTheTableAsTheAppendLeftIt() {
    AtomicReference<String> unreadable = new AtomicReference<>();
    io.onManifestList.set(() -> {
      appendRows(other, 100, 10);
      String list = current(other).currentSnapshot().manifestListLocation();
      unreadable.set(list);
      try {
        Files.write(Path.of(list.replaceFirst("^file:", "")), new byte[] {'n', 'o', 't', ' ', 'a', 'v', 'r', 'o'});
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });

    assertThatThrownBy(() -> events.maintenance().expireSnapshots().retainLast(1).execute())
        .isExactlyInstanceOf(StorageException.class)
        .hasMessageStartingWith("Cannot expire snapshots of table " + events.id())
        .hasMessageEndingWith("nothing was expired or deleted: " + unreadable.get());

    TableMetadata now = current(other);
    assertThat(now.currentSnapshot().manifestListLocation()).isEqualTo(unreadable.get());
    List<Long> expected = new ArrayList<>(snapshots);
    expected.add(now.currentSnapshot().snapshotId());
    assertThat(now.snapshots()).extracting(Snapshot::snapshotId).containsExactlyElementsOf(expected);
    assertThat(files).allMatch(f -> exists(f.location()));
  }

  private static TableMetadata current(FeatureTable table) {
    Table iceberg = table.unwrap(Table.class);
    iceberg.refresh();
    return ((HasTableOperations) iceberg).operations().current();
  }
}
