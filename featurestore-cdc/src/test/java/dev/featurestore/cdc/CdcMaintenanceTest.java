package dev.featurestore.cdc;

import static dev.featurestore.cdc.CdcTestSupport.LOG;
import static dev.featurestore.cdc.CdcTestSupport.STATE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.BackgroundMaintenanceStatus;
import dev.featurestore.CompactionResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.MaintenancePolicy;
import dev.featurestore.TableId;
import dev.featurestore.core.testing.HandClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Maintenance inside the stream: the pipeline's tables are expired, compacted and bounded while it writes. */
class CdcMaintenanceTest {
  @TempDir Path dir;
  private final HandClock clock = HandClock.aheadOfSystem();
  private FeatureStore store;

  @BeforeEach
  void open() {
    clock.advance(Duration.ofHours(1)); // every snapshot is past maxSnapshotAge as soon as it is made
    store = FeatureStore.builder().root(dir.resolve("store")).clock(clock).build();
  }

  @AfterEach
  void close() {
    store.close();
  }

  private CdcPipeline.Builder both() {
    return CdcPipeline.builder(store).changeLog(LOG).currentState(STATE).shardId("m")
        .writeAheadLog(dir.resolve("wal")).flushInterval(Duration.ZERO);
  }

  static MaintenancePolicy eager() {
    return MaintenancePolicy.builder().checkEvery(Duration.ofMillis(100)).leaseDuration(Duration.ofSeconds(10))
        .compactWhenSmallFilesAtLeast(4).rewriteManifestsWhenAtLeast(4).expireWhenSnapshotsAtLeast(8)
        .retainLastSnapshots(4).maxSnapshotAge(Duration.ofMinutes(1)).metadataVersionsToKeep(5)
        .removeOrphans(false).build();
  }

  @Test
  void pipelineThatKeepsWriting_isExpiredCompactedAndBounded_andEveryChangeIsReadableOnce() throws Exception {
    Map<String, Long> model = new TreeMap<>();
    long seq = 0;
    try (CdcPipeline cdc = both().maintenance(eager()).build()) {
      for (int batch = 0; batch < 50; batch++) {
        seq = writeBatch(cdc, batch, model);
        cdc.flush(); // throws if a commit failed: maintenance must never make it fail
        if (batch == 25) {
          awaitCondition(() -> maintained(cdc)); // maintenance ran while the stream was writing
        }
      }
      awaitCondition(() -> maintained(cdc));
      // the bound below is about the state maintenance leaves, not about how many commits a slow
      // machine fits between two checks: wait for two whole rounds after the last commit
      long[] roundsAfterLastCommit = cdc.maintenance().stream().mapToLong(s -> s.rounds() + 2).toArray();
      awaitCondition(() -> {
        List<BackgroundMaintenanceStatus> now = cdc.maintenance();
        return now.get(0).rounds() >= roundsAfterLastCommit[0] && now.get(1).rounds() >= roundsAfterLastCommit[1];
      });
      assertThat(cdc.metrics().lastError()).isEmpty();
      List<BackgroundMaintenanceStatus> statuses = cdc.maintenance();
      assertThat(statuses).extracting(BackgroundMaintenanceStatus::table).containsExactly(LOG, STATE);
      assertThat(statuses).allMatch(s -> s.leaseHeld() && s.running());
    }
    assertExactlyOnce(seq, model);
    for (TableId id : List.of(LOG, STATE)) {
      Table table = table(id);
      assertThat(table.properties()).containsEntry(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "5");
      assertThat(metadataFiles(table)).as(id + " metadata.json files").isLessThanOrEqualTo(6 + 2);
      assertThat(snapshots(table)).as(id + " snapshots").isLessThan(30); // 50 commits without maintenance
      assertThat(unreachableDataFiles(table)).as(id + " files no snapshot needs").isEmpty();
    }
  }

  @Test
  void writerCommits_afterMaintenanceRewroteTheirTables_land_andEveryChangeIsReadableOnce() throws Exception {
    AtomicInteger commits = new AtomicInteger();
    List<CompactionResult> compactions = Collections.synchronizedList(new ArrayList<>());
    List<Throwable> maintenanceFailures = Collections.synchronizedList(new ArrayList<>());
    Hooks maintainRightBeforeCommit = point -> {
      int n = point.equals("commit.before") ? commits.incrementAndGet() : 0;
      if (n >= 5 && n <= 8) {
        // between the writer's planning and its commit: rewrite every file of both tables, rewrite
        // manifests, expire all but the current snapshot
        for (TableId id : List.of(LOG, STATE)) {
          try {
            FeatureTable t = store.table(id);
            compactions.add(t.maintenance().compact().minInputFiles(1).execute());
            t.maintenance().rewriteManifests();
            t.maintenance().expireSnapshots().retainLast(1).execute();
          } catch (RuntimeException e) {
            maintenanceFailures.add(e);
          }
        }
      }
    };
    Map<String, Long> model = new TreeMap<>();
    long seq = 0;
    try (CdcPipeline cdc = both().withoutMaintenance().commitRetries(5).retryBackoff(Duration.ofMillis(1))
        .hooks(maintainRightBeforeCommit).build()) {
      assertThat(cdc.maintenance()).isEmpty();
      for (int batch = 0; batch < 8; batch++) {
        seq = writeBatch(cdc, batch, model);
        cdc.flush();
      }
      assertThat(cdc.metrics().lastError()).isEmpty();
    }
    assertThat(maintenanceFailures).isEmpty();
    assertThat(compactions).anyMatch(c -> c.rewrittenDataFiles() > 0);
    assertThat(commits.get()).isGreaterThan(16); // the current state's conflicting commits were redone
    assertExactlyOnce(seq, model);
  }

  @Test
  void maintenance_isOnByDefault_onTheEmbeddedCatalog_andRefusesNull() {
    try (CdcPipeline cdc = both().build()) {
      assertThat(cdc.maintenance()).hasSize(2).allMatch(BackgroundMaintenanceStatus::running);
    }
    assertThatThrownBy(() -> both().maintenance(null))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot build CDC pipeline: policy is null: null");
  }

  /** Ten updates over 40 documents; returns the last sequence id. */
  private static long writeBatch(CdcPipeline cdc, int batch, Map<String, Long> model) {
    long seq = 0;
    for (int j = 0; j < 10; j++) {
      String doc = Integer.toString((batch * 7 + j * 3) % 40);
      seq = cdc.update("users", doc, Map.of("id", doc, "batch", batch, "j", j));
      model.put("users/" + doc, seq);
    }
    return seq;
  }

  private void assertExactlyOnce(long lastSeq, Map<String, Long> model) {
    List<Long> seqs = new ArrayList<>(CdcTestSupport.sequences(store, LOG));
    Collections.sort(seqs);
    assertThat(seqs).containsExactlyElementsOf(LongStream.rangeClosed(1, lastSeq).boxed().toList());
    Map<String, Long> state = new TreeMap<>();
    for (Map.Entry<String, Record> e : CdcTestSupport.state(store, STATE).entrySet()) {
      state.put(e.getKey(), (Long) e.getValue().getField("_seq"));
    }
    assertThat(state).isEqualTo(model);
  }

  private static boolean maintained(CdcPipeline cdc) {
    List<BackgroundMaintenanceStatus> s = cdc.maintenance();
    return s.get(0).dataFilesCompacted() > 0 && s.get(0).snapshotsExpired() > 0 && s.get(1).snapshotsExpired() > 0;
  }

  /** Waits for background work, bounded; not a timing assertion (the bound only stops a hung test). */
  static void awaitCondition(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("background maintenance did not get there").isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private Table table(TableId id) {
    Table table = store.table(id).unwrap(Table.class);
    table.refresh();
    return table;
  }

  static int snapshots(Table table) {
    int n = 0;
    for (Snapshot ignored : table.snapshots()) {
      n++;
    }
    return n;
  }

  /** The catalog's metadata.json files (not the v<N>.metadata.json copies path-based readers use). */
  static long metadataFiles(Table table) throws IOException {
    try (Stream<Path> files = Files.list(local(table.location()).resolve("metadata"))) {
      return files.map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".metadata.json") && !n.matches("v\\d+\\.metadata\\.json")).count();
    }
  }

  /** Data files on disk that no remaining snapshot reads: what expiry (or orphan removal) should have deleted. */
  static List<Path> unreachableDataFiles(Table table) {
    Set<Path> reachable = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
        tasks.forEach(t -> reachable.add(local(t.file().location())));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    Path data = local(table.location()).resolve("data");
    if (!Files.exists(data)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(data)) {
      return files.filter(p -> p.toString().endsWith(".parquet")).filter(p -> !reachable.contains(p)).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Path local(String location) {
    String path = location.startsWith("file:") ? java.net.URI.create(location).getPath() : location;
    return Path.of(path).toAbsolutePath().normalize();
  }
}
