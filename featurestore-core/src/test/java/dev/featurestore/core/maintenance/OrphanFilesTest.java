package dev.featurestore.core.maintenance;

import static dev.featurestore.core.maintenance.MaintenanceTestData.appendRows;
import static dev.featurestore.core.maintenance.MaintenanceTestData.exists;
import static dev.featurestore.core.maintenance.MaintenanceTestData.liveDataFiles;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.OrphanFileRemoval;
import dev.featurestore.OrphanFilesResult;
import dev.featurestore.OrphanFilesResult.OrphanFile;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.testing.LocalStoreTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OrphanFilesTest extends LocalStoreTest {
  private FeatureTable events;

  @BeforeEach
  void setUp() {
    events = TestTables.createEvents(store, false);
  }

  private Path tableDir() {
    return Path.of(events.location());
  }

  /** Makes every file under the table look {@code age} old, as after a long quiet period. */
  private void ageAllFiles(Duration age) {
    FileTime old = FileTime.from(Instant.now().minus(age));
    try (Stream<Path> files = Files.walk(tableDir())) {
      files.filter(Files::isRegularFile).forEach(f -> {
        try {
          Files.setLastModifiedTime(f, old);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path writeFile(String relative, int bytes) throws IOException {
    Path file = tableDir().resolve(relative);
    Files.createDirectories(file.getParent());
    Files.write(file, new byte[bytes]);
    return file;
  }

  /** Writes a data file the way a writer does before it commits; returns it uncommitted. */
  private DataFile writeUncommittedDataFile(long firstId, int rows) {
    Table table = events.unwrap(Table.class);
    table.refresh();
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
    OutputFileFactory outputs = OutputFileFactory.builderFor(table, 7, 7).format(FileFormat.PARQUET).build();
    DataWriter<Record> writer = writers.newDataWriter(outputs.newOutputFile(), table.spec(), null);
    try (writer) {
      for (int i = 0; i < rows; i++) {
        writer.write(TestTables.event(events, firstId + i, "2026-01-01T00:00:00Z", 1.0, 1.0));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  @Test
  void orphans_dryRun_listsUnreferencedOldFilesWithoutDeleting() throws Exception {
    appendRows(events, 0, 10);
    appendRows(events, 10, 10);
    Path strayData = writeFile("data/stray-00001.parquet", 100);
    Path strayManifest = writeFile("metadata/stray-m0.avro", 50);
    ageAllFiles(Duration.ofHours(4));

    OrphanFilesResult result = events.maintenance().removeOrphanFiles().dryRun();

    assertThat(result.deleted()).isFalse();
    assertThat(result.candidates()).extracting(OrphanFile::location)
        .containsExactly(strayData.toString(), strayManifest.toString());
    assertThat(result.candidates()).extracting(OrphanFile::sizeBytes).containsExactly(100L, 50L);
    assertThat(result.candidates()).allMatch(f -> f.age().compareTo(Duration.ofHours(3)) > 0);
    assertThat(result.bytes()).isEqualTo(150);
    assertThat(strayData).exists();
    assertThat(strayManifest).exists();
  }

  @Test
  void orphans_safetyWindow_isMeasuredByTheStoresClock() throws Exception {
    dev.featurestore.core.TestClock clock = new dev.featurestore.core.TestClock();
    try (FeatureStore clocked = FeatureStore.builder().root(dir.resolve("clocked")).clock(clock).build()) {
      FeatureTable table = TestTables.createEvents(clocked, false);
      appendRows(table, 0, 10);
      Path stray = Path.of(table.location()).resolve("data/stray-00001.parquet");
      Files.write(stray, new byte[100]);

      assertThat(table.maintenance().removeOrphanFiles().dryRun().candidates()).isEmpty();
      clock.advance(OrphanFileRemoval.DEFAULT_SAFETY_WINDOW.plusMinutes(1));
      OrphanFilesResult result = table.maintenance().removeOrphanFiles().dryRun();
      assertThat(result.candidates()).extracting(OrphanFile::location).containsExactly(stray.toString());
      assertThat(result.candidates()).allMatch(f -> f.age().compareTo(OrphanFileRemoval.DEFAULT_SAFETY_WINDOW) > 0);
    }
  }

  @Test
  void orphans_execute_deletesOnlyOrphansAndTableStaysReadable() throws Exception {
    appendRows(events, 0, 10);
    appendRows(events, 10, 10);
    Path stray = writeFile("data/stray-00001.parquet", 100);
    ageAllFiles(Duration.ofHours(4));

    OrphanFileRemoval removal = events.maintenance().removeOrphanFiles();
    OrphanFilesResult result = removal.execute();
    assertThatThrownBy(removal::dryRun)
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot execute orphan file removal of table " + events.id() + ": already executed");

    assertThat(result.deleted()).isTrue();
    assertThat(result.candidates()).extracting(OrphanFile::location).containsExactly(stray.toString());
    assertThat(stray).doesNotExist();
    assertThat(events.query().count()).isEqualTo(20);
    assertThat(liveDataFiles(events)).allMatch(MaintenanceTestData::exists);
    assertThat(events.maintenance().removeOrphanFiles().dryRun().candidates()).isEmpty();
  }

  @Test
  void orphans_keepEveryFileOfEverySnapshotAndTheMetadataLog() {
    appendRows(events, 0, 10);
    appendRows(events, 10, 10);
    TestTables.positionDelete(events, appendRows(events, 20, 10).get(0), 0, 1);
    events.snapshots().createTag("t", TestTables.currentSnapshotId(events));
    ageAllFiles(Duration.ofDays(1));

    OrphanFilesResult result = events.maintenance().removeOrphanFiles().dryRun();

    assertThat(result.candidates()).isEmpty();
    assertThat(result.scannedFiles()).isEqualTo(result.referencedFiles());
  }

  @Test
  void orphans_metadataFileNoLongerInTheLog_isAnOrphan() throws Exception {
    appendRows(events, 0, 10);
    Path staleMetadata = writeFile("metadata/00000-stale.metadata.json", 10);
    ageAllFiles(Duration.ofHours(4));

    OrphanFilesResult result = events.maintenance().removeOrphanFiles().execute();

    assertThat(result.candidates()).extracting(OrphanFile::location).containsExactly(staleMetadata.toString());
    events.refresh();
    assertThat(events.query().count()).isEqualTo(10);
  }

  @Test
  void orphans_uncommittedFileYoungerThanWindow_isNotListedAndCommitsFine() {
    appendRows(events, 0, 10);
    ageAllFiles(Duration.ofHours(4));
    // a concurrent writer has written its data file but not yet committed it
    DataFile inFlight = writeUncommittedDataFile(100, 5);

    OrphanFilesResult result = events.maintenance().removeOrphanFiles().execute();

    assertThat(result.candidates()).isEmpty();
    assertThat(exists(inFlight.location())).isTrue();
    Table table = events.unwrap(Table.class);
    table.refresh();
    table.newAppend().appendFile(inFlight).commit();
    events.refresh();
    assertThat(events.query().count()).isEqualTo(15);
  }

  @Test
  void orphans_unsafeZeroWindow_listsFreshUncommittedFile() {
    appendRows(events, 0, 10);
    DataFile inFlight = writeUncommittedDataFile(100, 5);

    OrphanFilesResult result = events.maintenance().removeOrphanFiles().olderThan(Duration.ZERO).unsafe().dryRun();

    assertThat(result.candidates()).extracting(OrphanFile::location).containsExactly(inFlight.location());
  }

  @Test
  void orphans_windowBelowMinimumWithoutUnsafe_fails() {
    assertThatThrownBy(() -> events.maintenance().removeOrphanFiles().olderThan(Duration.ofSeconds(30)).dryRun())
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot remove orphan files: safety window is below the minimum of PT1M"
            + " (call unsafe() if no writer is running): PT30S");
  }

  @Test
  void orphans_negativeWindow_fails() {
    assertThatThrownBy(() -> events.maintenance().removeOrphanFiles().olderThan(Duration.ofSeconds(-1)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot remove orphan files: safety window is negative: PT-1S");
  }

  @Test
  void orphans_filesOfAnotherTableWithACommonPrefix_areNotTouched() throws Exception {
    appendRows(events, 0, 10);
    Path sibling = Path.of(events.location() + "_backup").resolve("data/x.parquet");
    Files.createDirectories(sibling.getParent());
    Files.write(sibling, new byte[10]);
    Files.setLastModifiedTime(sibling, FileTime.from(Instant.now().minus(Duration.ofDays(1))));

    OrphanFilesResult result = events.maintenance().removeOrphanFiles().execute();

    assertThat(result.candidates()).isEmpty();
    assertThat(sibling).exists();
  }

  @Test
  void orphans_afterExpiry_findNothingLeftBehind() {
    for (int i = 0; i < 4; i++) {
      appendRows(events, i * 10L, 10);
    }
    events.maintenance().compact().execute();
    events.maintenance().expireSnapshots().retainLast(1).execute();
    ageAllFiles(Duration.ofHours(4));

    List<OrphanFile> orphans = events.maintenance().removeOrphanFiles().dryRun().candidates();

    assertThat(orphans).isEmpty();
  }
}
