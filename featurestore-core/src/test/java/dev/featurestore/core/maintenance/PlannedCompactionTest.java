package dev.featurestore.core.maintenance;

import static dev.featurestore.core.maintenance.MaintenanceTestData.appendRows;
import static dev.featurestore.core.maintenance.MaintenanceTestData.exists;
import static dev.featurestore.core.maintenance.MaintenanceTestData.liveDataFiles;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.CommitConflictException;
import dev.featurestore.CompactionResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.MaintenancePlan;
import dev.featurestore.MaintenancePolicy;
import dev.featurestore.MaintenanceReport;
import dev.featurestore.MaintenanceStep;
import dev.featurestore.MaintenanceTask;
import dev.featurestore.QueryResult;
import dev.featurestore.Row;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.storage.LocalFileIO;
import dev.featurestore.core.testing.InputInterceptingFileIO;
import dev.featurestore.core.testing.StoreTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A maintenance plan's compaction step: decided by the compaction it runs (its planning of the
 * files, its defaults), planned once per round (the plan's file list handed over to the
 * compaction), and committed against the snapshot the plan saw, whatever committed in between.
 */
class PlannedCompactionTest extends StoreTest {
  /** The local FileIO, logging the files it opens ({@code read <location>}) and creates ({@code write <location>}). */
  static final class RecordingIO extends InputInterceptingFileIO {
    final List<String> events = Collections.synchronizedList(new ArrayList<>());

    RecordingIO() {
      super(new LocalFileIO(), Ownership.OWNED);
    }

    @Override
    protected InputFile intercept(InputFile file) {
      events.add("read " + file.location());
      return file;
    }

    @Override
    public OutputFile newOutputFile(String location) {
      events.add("write " + location);
      return super.newOutputFile(location);
    }
  }

  private final RecordingIO io = new RecordingIO();
  private Path root;
  private FeatureTable events;

  /** Compaction only: the other steps' thresholds out of reach. */
  private static final MaintenancePolicy COMPACT_ONLY = MaintenancePolicy.builder().compactWhenSmallFilesAtLeast(5)
      .rewriteManifestsWhenAtLeast(1_000).expireWhenSnapshotsAtLeast(1_000).removeOrphans(false).build();

  @BeforeEach
  void openStore() {
    root = dir.resolve("store");
    store = FeatureStore.builder().root(root).fileIO(io).build();
  }

  private List<Long> ids() {
    List<Long> ids = new ArrayList<>();
    try (QueryResult result = events.query().select("entity_id").execute()) {
      for (Row row : result) {
        ids.add(((Number) row.get("entity_id")).longValue());
      }
    }
    ids.sort(Long::compare);
    return ids;
  }

  private static List<Long> range(long from, long to) {
    List<Long> ids = new ArrayList<>();
    for (long i = from; i < to; i++) {
      ids.add(i);
    }
    return ids;
  }

  private List<DataFile> sixSmallFiles() {
    events = TestTables.createEvents(store, false);
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      files.addAll(appendRows(events, i * 10L, 10));
    }
    return files;
  }

  private long filesOnDisk() throws Exception {
    try (Stream<Path> files = Files.walk(Path.of(events.location(), "data"))) {
      return files.filter(Files::isRegularFile).count();
    }
  }

  /**
   * One small file in each of two partitions: two small files reach the threshold, but the
   * compaction rewrites a partition only from two candidates (its minInputFiles). The plan used
   * to plan the step anyway without size tiers (it ran and rewrote nothing); it is now decided by
   * that compaction. A second file in one day makes it worth it: planned, and it rewrites exactly those two.
   */
  @Test
  void plan_oneSmallFilePerPartition_plansNoCompaction_asTheCompactionWouldRewriteNothing() {
    events = TestTables.createEvents(store, true);
    appendRows(events, 0, 10, "2026-01-01T00:00:00Z");
    appendRows(events, 100, 10, "2026-01-02T00:00:00Z");
    MaintenancePolicy everySmallFile = COMPACT_ONLY.toBuilder().compactWhenSmallFilesAtLeast(2).compactEverySmallFile()
        .build();

    MaintenanceReport nothing = events.maintenance().plan(everySmallFile).execute();

    assertThat(nothing.steps()).isEmpty();
    assertThat(nothing.compaction()).isEmpty();
    assertThat(events.maintenance().plan(COMPACT_ONLY.toBuilder().compactWhenSmallFilesAtLeast(2).build()).steps())
        .as("with size tiers").isEmpty();

    appendRows(events, 10, 10, "2026-01-01T00:00:00Z");
    MaintenancePlan plan = events.maintenance().plan(everySmallFile);
    assertThat(plan.steps()).extracting(MaintenanceStep::task).containsExactly(MaintenanceTask.COMPACT);
    CompactionResult result = plan.execute().compaction().orElseThrow();
    assertThat(result.rewrittenDataFiles()).isEqualTo(2);
    assertThat(result.partitions()).isEqualTo(1);
    List<Long> expected = range(0, 20);
    expected.addAll(range(100, 110));
    assertThat(ids()).isEqualTo(expected);
  }

  /**
   * A round reads each manifest of the planned snapshot once before it writes: the plan's planning
   * is the compaction's (it used to plan the files again in the compaction: every manifest read
   * twice). Committing reads them again (Iceberg filters the manifests that list a rewritten file).
   */
  @Test
  void round_plansTheTableOnce() {
    sixSmallFiles();
    Table table = events.unwrap(Table.class);
    table.refresh();
    List<String> manifests = new ArrayList<>();
    for (ManifestFile m : table.currentSnapshot().allManifests(table.io())) {
      manifests.add(m.path());
    }
    io.events.clear();

    MaintenanceReport report = events.maintenance().plan(COMPACT_ONLY).execute();

    assertThat(report.compaction().orElseThrow().rewrittenDataFiles()).isEqualTo(6);
    List<String> log = List.copyOf(io.events);
    int firstWrite = 0;
    while (firstWrite < log.size() && !(log.get(firstWrite).startsWith("write ") && log.get(firstWrite).contains("/data/"))) {
      firstWrite++;
    }
    assertThat(firstWrite).as("the compaction wrote").isLessThan(log.size());
    Map<String, Integer> readsBeforeWriting = new HashMap<>();
    for (String event : log.subList(0, firstWrite)) {
      if (event.startsWith("read ")) {
        readsBeforeWriting.merge(event.substring("read ".length()), 1, Integer::sum);
      }
    }
    assertThat(manifests).hasSize(6);
    for (String manifest : manifests) {
      assertThat(readsBeforeWriting.getOrDefault(manifest, 0)).as(manifest).isEqualTo(1);
    }
    assertThat(ids()).isEqualTo(range(0, 60));
  }

  /**
   * A stream commits between the plan and its execution (an append, and deletes of rows of the
   * planned files): the compaction rewrites the files the plan saw, committed against that
   * snapshot, carries the deletes over, and the append survives.
   */
  @Test
  void commitsBetweenPlanAndExecute_deletesCarriedOver_appendSurvives() {
    List<DataFile> planned = sixSmallFiles();
    MaintenancePlan plan = events.maintenance().plan(COMPACT_ONLY);
    try (FeatureStore other = FeatureStore.openLocal(root)) {
      FeatureTable stream = other.table(events.id());
      appendRows(stream, 1000, 10);
      stream.deleteRows().keys("entity_id", List.of(3L, 25L, 1004L)).execute();
    }

    CompactionResult result = plan.execute().compaction().orElseThrow();

    assertThat(result.rewrittenDataFiles()).as("the planned files, not the append").isEqualTo(6);
    assertThat(result.rows()).isEqualTo(60);
    assertThat(result.carriedDeletes()).isEqualTo(2);
    List<Long> expected = range(0, 60);
    expected.addAll(range(1000, 1010));
    expected.removeAll(List.of(3L, 25L, 1004L));
    assertThat(ids()).isEqualTo(expected);
    assertThat(liveDataFiles(events)).doesNotContainAnyElementsOf(planned.stream().map(DataFile::location).toList())
        .allMatch(MaintenanceTestData::exists);
  }

  /**
   * A commit between the plan and its execution that the compaction cannot carry over (one
   * position-delete file for two planned files, as other engines write them): the compaction fails
   * typed, its files are deleted and the table is as that commit left it.
   */
  @Test
  void uncarriableCommitBetweenPlanAndExecute_failsTyped_tableUnchanged() throws Exception {
    List<DataFile> planned = sixSmallFiles();
    MaintenancePlan plan = events.maintenance().plan(COMPACT_ONLY);
    long snapshot;
    try (FeatureStore other = FeatureStore.openLocal(root)) {
      TestTables.positionDeletes(other.table(events.id()), Map.of(planned.get(0), List.of(0L), planned.get(1), List.of(0L)));
      snapshot = TestTables.currentSnapshotId(other.table(events.id()));
    }
    List<String> live = liveDataFiles(events);
    long onDisk = filesOnDisk();

    assertThatThrownBy(plan::execute)
        .isInstanceOf(CommitConflictException.class)
        .hasMessageStartingWith("Cannot compact table " + events.id() + ": a concurrent commit conflicts: "
            + "cannot carry its deletes over: snapshot " + snapshot + " added position deletes not scoped to one data file: ");

    assertThat(TestTables.currentSnapshotId(events)).isEqualTo(snapshot);
    assertThat(liveDataFiles(events)).containsExactlyInAnyOrderElementsOf(live);
    assertThat(filesOnDisk()).isEqualTo(onDisk);
    List<Long> expected = range(0, 60);
    expected.removeAll(List.of(0L, 10L));
    assertThat(ids()).isEqualTo(expected);
    // the next round plans from the table as it is now
    assertThat(events.maintenance().plan(COMPACT_ONLY).execute().compaction().orElseThrow().rewrittenDataFiles())
        .isEqualTo(6);
    assertThat(ids()).isEqualTo(expected);
  }

  /**
   * History rolled back between the plan and its execution: the planned snapshot is no longer in
   * the current history, so the compaction plans again at the current snapshot (as before the
   * hand-over) and rewrites what is there.
   */
  @Test
  void historyRolledBackBetweenPlanAndExecute_plansAgainAtTheCurrentSnapshot() {
    List<DataFile> planned = sixSmallFiles();
    Table table = events.unwrap(Table.class);
    table.refresh();
    long fifth = table.currentSnapshot().parentId();
    MaintenancePlan plan = events.maintenance().plan(COMPACT_ONLY);
    table.manageSnapshots().rollbackTo(fifth).commit();

    MaintenanceReport report = plan.execute();

    assertThat(report.compaction().orElseThrow().rewrittenDataFiles()).isEqualTo(5);
    assertThat(ids()).isEqualTo(range(0, 50));
    table.refresh();
    Snapshot compacted = table.currentSnapshot();
    assertThat(compacted.parentId()).isEqualTo(fifth);
    assertThat(exists(planned.get(5).location())).isTrue(); // unreachable from the current snapshot, not deleted
  }

  /**
   * Another executor's compaction (here another store's maintenance of the same table) is decided
   * with the library's rules on the plan's planning, configured by the policy, and run by it: it
   * plans for itself when it runs, so it also compacts what was appended after the plan.
   */
  @Test
  void planWithAnotherExecutor_decidedByTheLibrarysRules_runByTheExecutorsCompaction() {
    sixSmallFiles();
    try (FeatureStore other = FeatureStore.openLocal(root)) {
      FeatureTable executor = other.table(events.id());
      MaintenancePlan plan = events.maintenance().plan(COMPACT_ONLY, executor.maintenance());
      assertThat(plan.steps()).extracting(MaintenanceStep::task).containsExactly(MaintenanceTask.COMPACT);
      appendRows(events, 1000, 10);

      CompactionResult result = plan.execute().compaction().orElseThrow();

      assertThat(result.rewrittenDataFiles()).isEqualTo(7);
    }
    List<Long> expected = range(0, 60);
    expected.addAll(range(1000, 1010));
    assertThat(ids()).isEqualTo(expected);
    assertThat(events.maintenance().plan(COMPACT_ONLY.toBuilder().compactEverySmallFile().build(),
        events.maintenance()).steps()).as("one file left: nothing to rewrite").isEmpty();
  }

  /**
   * A table whose target file size is not positive cannot be compacted (compact() fails typed); a
   * plan leaves the compaction out and still plans the other steps, so background maintenance keeps
   * expiring its snapshots.
   */
  @Test
  void plan_tableTargetSizeNotPositive_noCompactionStep_otherStepsPlanned() {
    events = store.createTable(dev.featurestore.TableDefinition.builder(
            dev.featurestore.SyntheticFeatures.TABLE_ID, dev.featurestore.SyntheticFeatures.schema())
        .property(org.apache.iceberg.TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, "0").build());
    for (int i = 0; i < 6; i++) {
      appendRows(events, i * 10L, 10);
    }

    MaintenancePlan plan = events.maintenance().plan(COMPACT_ONLY.toBuilder().compactWhenSmallFilesAtLeast(1)
        .compactWhenDeleteFilesAtLeast(1).expireWhenSnapshotsAtLeast(6).build());

    assertThat(plan.steps()).extracting(MaintenanceStep::task).containsExactly(MaintenanceTask.EXPIRE_SNAPSHOTS);
    assertThatThrownBy(() -> events.maintenance().compact().execute())
        .isInstanceOf(dev.featurestore.InvalidArgumentException.class)
        .hasMessage("Cannot compact: target file size must be positive: 0");
  }
}
