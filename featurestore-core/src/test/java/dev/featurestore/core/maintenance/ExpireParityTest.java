package dev.featurestore.core.maintenance;

import static dev.featurestore.core.maintenance.MaintenanceTestData.appendRows;
import static dev.featurestore.core.maintenance.MaintenanceTestData.exists;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.ExpireResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.storage.LocalFileIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.LocationProviders;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.encryption.PlaintextEncryptionManager;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Our expiry deletes exactly the files Iceberg's own reachability cleanup deletes. Each test builds
 * one table, opens its current metadata a second time as a copy (the same files; the copy's
 * commits write their metadata elsewhere), lets Iceberg's {@code ExpireSnapshots} on the copy
 * report the files it would delete (collected, not deleted), then runs our expiry on the original
 * and compares the files that disappeared from disk.
 */
class ExpireParityTest {
  @TempDir Path dir;
  private FeatureStore store;
  private FeatureTable events;

  @BeforeEach
  void setUp() {
    store = FeatureStore.openLocal(dir.resolve("store"));
    events = TestTables.createEvents(store, false);
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  @Test
  void expire_withBranchTagCompactionDeletesAndRollback_deletesWhatIcebergsReachabilityCleanupDeletes() {
    List<Long> snapshots = new ArrayList<>();
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      files.addAll(appendRows(events, i * 10L, 10));
      snapshots.add(TestTables.currentSnapshotId(events));
      TestTables.tick();
    }
    Table table = iceberg();
    table.manageSnapshots().createTag("t1", snapshots.get(1)).commit();
    table.manageSnapshots().createBranch("b", snapshots.get(2)).commit();
    // a file appended on main and rolled back, then added to the branch: the branch keeps it
    List<DataFile> branchFiles = appendRows(events, 500, 10);
    table = iceberg();
    table.manageSnapshots().rollbackTo(snapshots.get(4)).commit();
    table.newFastAppend().appendFile(branchFiles.get(0)).toBranch("b").commit();
    // on the branch: a delete of the first file (still on main and the tag)
    table.newDelete().deleteFromRowFilter(Expressions.lessThan("entity_id", 10L)).toBranch("b").commit();
    // a file appended on main and rolled back: no ref reaches it
    appendRows(events, 900, 10);
    long rolledBack = TestTables.currentSnapshotId(events);
    iceberg().manageSnapshots().rollbackTo(snapshots.get(4)).commit();
    // on main: a position delete, then a compaction that folds it, and one more append
    TestTables.positionDelete(events, files.get(3), 0, 1);
    assertThat(events.maintenance().compact().execute().rewrittenDataFiles()).isPositive();
    appendRows(events, 100, 10);
    TestTables.tick();
    assertThat(iceberg().snapshot(rolledBack)).isNotNull();

    Set<String> icebergDeletes = icebergWouldDelete(false);
    Set<String> before = filesUnder(events.location());
    ExpireResult result = events.maintenance().expireSnapshots().retainLast(1).execute();
    Set<String> ours = new TreeSet<>(before);
    ours.removeAll(filesUnder(events.location()));

    assertThat(ours).isEqualTo(icebergDeletes);
    assertThat(result.deletedFiles()).isEqualTo(ours.size());
    assertThat(result.deletedDataFiles() + result.deletedDeleteFiles())
        .isEqualTo(ours.stream().filter(f -> f.endsWith(".parquet")).count());
    assertThat(result.deletedDeleteFiles()).isEqualTo(1); // folded by the compaction
    assertThat(result.deletedManifestLists()).isEqualTo(result.expiredSnapshots());
    // the rolled-back append's file and the two compacted files no ref reaches
    assertThat(result.deletedDataFiles()).isEqualTo(3);
    assertThat(result.bytesFreed()).isPositive();
    assertThat(iceberg().refs()).containsKeys("main", "b", "t1");
    assertEveryRefReadable();
  }

  @Test
  void expire_mainOnly_deletesWhatReachabilityCleanupDeletes_andMoreThanTheIncrementalCleanup() {
    for (int i = 0; i < 20; i++) {
      if (i % 5 == 4) {
        iceberg().newDelete().deleteFromRowFilter(Expressions.alwaysTrue()).commit();
      } else {
        appendRows(events, i * 10L, 10);
      }
      TestTables.tick();
    }
    Set<String> reachable = icebergWouldDelete(true);
    Set<String> incremental = icebergWouldDelete(false);
    Set<String> before = filesUnder(events.location());

    ExpireResult result = events.maintenance().expireSnapshots().retainLast(1).execute();
    Set<String> ours = new TreeSet<>(before);
    ours.removeAll(filesUnder(events.location()));

    assertThat(ours).isEqualTo(reachable);
    // the incremental cleanup keeps the files the retained (last) snapshot deleted
    assertThat(ours).containsAll(incremental).hasSizeGreaterThan(incremental.size());
    assertThat(result.deletedFiles()).isEqualTo(ours.size());
    assertThat(result.deletedDataFiles()).isEqualTo(16); // the incremental cleanup: 12
    assertEveryRefReadable();
  }

  private Table iceberg() {
    Table table = events.unwrap(Table.class);
    table.refresh();
    return table;
  }

  /**
   * The files Iceberg's {@code ExpireSnapshots} (retain the last snapshot) deletes, on a copy of
   * the table registered from the same metadata; nothing is deleted. {@code reachable} forces the
   * reachability cleanup on a table with only {@code main} (Iceberg then cleans incrementally).
   */
  private Set<String> icebergWouldDelete(boolean reachable) {
    String metadata = ((HasTableOperations) iceberg()).operations().current().metadataFileLocation();
    Table copy = new BaseTable(new CopyOperations(metadata, dir.resolve("copy-" + System.nanoTime())), "copy");
    Set<String> deleted = new TreeSet<>();
    var expire = copy.expireSnapshots()
        .expireOlderThan(System.currentTimeMillis() + 1)
        .retainLast(1)
        .deleteWith(f -> {
          synchronized (deleted) {
            deleted.add(LocalFileIO.toPath(f).toString());
          }
        });
    if (reachable) {
      long oldest = copy.snapshots().iterator().next().snapshotId();
      expire.expireSnapshotId(oldest); // naming a snapshot switches Iceberg to reachability
    }
    expire.commit();
    assertThat(deleted).isNotEmpty();
    return deleted;
  }

  /** Data, delete, manifest, manifest list and statistics files under the table (not metadata.json). */
  private static Set<String> filesUnder(String location) {
    try (Stream<Path> walk = Files.walk(LocalFileIO.toPath(location))) {
      return walk.filter(Files::isRegularFile)
          .map(Path::toString)
          .filter(p -> !p.endsWith(".metadata.json") && !p.endsWith("version-hint.text"))
          .collect(Collectors.toCollection(TreeSet::new));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void assertEveryRefReadable() {
    Table table = iceberg();
    for (Map.Entry<String, SnapshotRef> ref : table.refs().entrySet()) {
      Set<String> needed = new HashSet<>();
      table.snapshot(ref.getValue().snapshotId()).allManifests(table.io()).forEach(m -> needed.add(m.path()));
      try (CloseableIterable<FileScanTask> tasks = table.newScan().useRef(ref.getKey()).planFiles()) {
        for (FileScanTask task : tasks) {
          needed.add(task.file().location());
          task.deletes().forEach(d -> needed.add(d.location()));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      assertThat(needed).as("files of ref %s", ref.getKey()).allMatch(MaintenanceTestData::exists);
    }
  }

  /** A table's metadata opened again; commits write metadata files to their own folder. */
  private static final class CopyOperations implements TableOperations {
    private final FileIO io = new LocalFileIO();
    private final Path metadataFolder;
    private TableMetadata current;

    CopyOperations(String metadataLocation, Path metadataFolder) {
      this.current = TableMetadataParser.read(io, metadataLocation);
      this.metadataFolder = metadataFolder;
    }

    @Override
    public TableMetadata current() {
      return current;
    }

    @Override
    public TableMetadata refresh() {
      return current;
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
      if (base != current) {
        throw new CommitFailedException("Cannot commit to the copy: stale base");
      }
      String location = metadataFileLocation(UUID.randomUUID() + ".metadata.json");
      TableMetadataParser.write(metadata, io.newOutputFile(location));
      current = TableMetadataParser.read(io, location);
    }

    @Override
    public FileIO io() {
      return io;
    }

    @Override
    public EncryptionManager encryption() {
      return PlaintextEncryptionManager.instance();
    }

    @Override
    public String metadataFileLocation(String fileName) {
      return metadataFolder.resolve(fileName).toString();
    }

    @Override
    public LocationProvider locationProvider() {
      return LocationProviders.locationsFor(current.location(), current.properties());
    }
  }
}
