package dev.featurestore.cdc;

import static dev.featurestore.cdc.CdcTestSupport.LOG;
import static dev.featurestore.cdc.CdcTestSupport.STATE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.MaintenanceRun;
import dev.featurestore.MaintenanceTask;
import dev.featurestore.MetricsListener;
import dev.featurestore.FeatureStore;
import dev.featurestore.MaintenancePolicy;
import dev.featurestore.TableId;
import dev.featurestore.core.base.CatalogLease;
import dev.featurestore.core.testing.ChildJvm;
import dev.featurestore.core.testing.HandClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Background maintenance across processes: a child JVM streaming with maintenance is killed with
 * SIGKILL while compacting, while carrying the stream's deletes over into a compaction of the
 * current state (holding the table's commit lock, the stream waiting for it), while expiring, or while holding the maintenance lease; the restarted
 * pipeline loses and doubles nothing, takes the lease over once it expired, and its maintenance
 * removes what the killed one left. Two children on one table are never maintainers at once.
 */
class CdcMaintenanceCrashTest {
  private static final Duration WAIT = Duration.ofMinutes(3);
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"compacting", "carrying", "expiring", "lease"})
  void sigkill_whileMaintaining_restartLosesNothing_takesTheLeaseOver_andLeavesNoOrphan(String mode) throws Exception {
    Path root = dir.resolve("store");
    Path wal = dir.resolve("wal");
    long lastAcked;
    String childOwner;
    try (ChildJvm child = ChildJvm.start(CdcMaintenanceChild.class, dir, root.toString(), wal.toString(), "k", mode, "0")) {
      assertThat(child.await("PAUSED " + mode, WAIT)).as("child reached " + mode).isPresent();
      child.kill();
      lastAcked = child.lines().stream().filter(l -> l.startsWith("ACK ")).mapToLong(l -> Long.parseLong(l.substring(4)))
          .max().orElse(0);
      childOwner = child.lines().stream().filter(l -> l.startsWith("PID ")).map(l -> l.substring(4)).findFirst()
          .orElseThrow();
    }
    assertThat(lastAcked).isPositive();

    HandClock clock = HandClock.aheadOfSystem();
    try (CatalogLease leases = new CatalogLease("jdbc:sqlite:" + root.resolve("catalog.db"), new Properties(), clock)) {
      // the dead child still holds the maintenance lease (30 s): nobody may maintain before it expires
      CatalogLease.Grant held = leases.holder("maintenance:" + LOG).orElseThrow();
      assertThat(held.owner()).contains("/" + childOwner + "/");
    }
    MaintenancePolicy policy = CdcMaintenanceTest.eager().toBuilder().leaseDuration(Duration.ofSeconds(30))
        .removeOrphans(true).orphanSafetyWindow(Duration.ofMinutes(1)).build();
    List<MaintenanceRun> runs = Collections.synchronizedList(new ArrayList<>());
    try (FeatureStore store = FeatureStore.builder().root(root).clock(clock).metricsListener(new MetricsListener() {
      @Override
      public void onMaintenance(MaintenanceRun run) {
        runs.add(run);
      }
    }).build()) {
      long accepted;
      try (CdcPipeline cdc = CdcPipeline.builder(store).changeLog(LOG).currentState(STATE).shardId("k")
          .writeAheadLog(wal).flushInterval(Duration.ZERO).maintenance(policy).build()) {
        cdc.flush(); // what the killed child accepted and did not commit
        accepted = cdc.lastAcceptedSequence();
        assertThat(accepted).isGreaterThanOrEqualTo(lastAcked);
        // nothing writes from here on; time passes: the child's lease expires, its files age past the window
        clock.advance(Duration.ofMinutes(2));
        CdcMaintenanceTest.awaitCondition(() -> removedOrphans(runs, LOG) && removedOrphans(runs, STATE));
        assertThat(cdc.maintenance()).allMatch(s -> s.leaseTakeovers() == 1 && s.leaseHeld());
        if (mode.equals("carrying")) {
          // the killed compaction's data file and carried-over vectors: written, never committed
          assertThat(cdc.maintenance().get(1).orphanFilesRemoved()).as("what the killed compaction left").isPositive();
        } else if (!mode.equals("lease")) {
          assertThat(cdc.maintenance().get(0).orphanFilesRemoved()).as("what the killed maintenance left").isPositive();
        }
      }
      List<Long> seqs = new ArrayList<>(CdcTestSupport.sequences(store, LOG));
      Collections.sort(seqs);
      assertThat(seqs).containsExactlyElementsOf(LongStream.rangeClosed(1, accepted).boxed().toList());
      Map<String, Long> model = new TreeMap<>();
      for (long s = 1; s <= accepted; s++) {
        model.put("users/d" + (s % 40), s);
      }
      Map<String, Long> state = new TreeMap<>();
      for (Map.Entry<String, Record> e : CdcTestSupport.state(store, STATE).entrySet()) {
        state.put(e.getKey(), (Long) e.getValue().getField("_seq"));
      }
      assertThat(state).isEqualTo(model);
      for (TableId id : List.of(LOG, STATE)) {
        Table table = store.table(id).unwrap(Table.class);
        table.refresh();
        assertThat(CdcMaintenanceTest.unreachableDataFiles(table)).as(id + ": files no snapshot reads").isEmpty();
      }
    }
  }

  private String stderr() throws java.io.IOException {
    Path log = dir.resolve("child-stderr.log");
    return java.nio.file.Files.exists(log) ? java.nio.file.Files.readString(log) : "";
  }

  private static boolean removedOrphans(List<MaintenanceRun> runs, TableId table) {
    synchronized (runs) {
      return runs.stream().anyMatch(r -> r.table().equals(table) && r.outcome() == MaintenanceRun.Outcome.DONE
          && r.tasks().contains(MaintenanceTask.REMOVE_ORPHAN_FILES));
    }
  }

  @Test
  void twoProcesses_maintainingOneTable_areNeverMaintainersAtOnce() throws Exception {
    Path root = dir.resolve("store");
    try (FeatureStore store = FeatureStore.openLocal(root);
         CdcPipeline create = CdcPipeline.builder(store).changeLog(LOG).shardId("init")
             .writeAheadLog(dir.resolve("wal-init")).withoutMaintenance().build()) {
      create.insert("users", "0", Map.of("s", 0)); // the table exists before the children race to create it
    }
    List<String> lines = new ArrayList<>();
    for (int round = 0; round < 2; round++) {
      try (ChildJvm a = ChildJvm.start(CdcMaintenanceChild.class, dir, root.toString(), dir.resolve("wal-a").toString(),
               "a", "race", round == 0 ? "40" : "15");
           ChildJvm b = ChildJvm.start(CdcMaintenanceChild.class, dir, root.toString(), dir.resolve("wal-b").toString(),
               "b", "race", round == 0 ? "15" : "40")) {
        assertThat(a.await("DONE", WAIT)).as("child a finished: %s", stderr()).isPresent();
        assertThat(b.await("DONE", WAIT)).as("child b finished: %s", stderr()).isPresent();
        lines.addAll(a.lines());
        lines.addAll(b.lines());
      }
    }
    Map<String, List<long[]>> byTable = new HashMap<>(); // table -> {token, pid, start, end}
    for (String line : lines) {
      if (line.startsWith("RUN ")) {
        String[] f = line.split(" ");
        byTable.computeIfAbsent(f[1], k -> new ArrayList<>())
            .add(new long[] {Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5])});
      }
    }
    assertThat(byTable).containsKeys(LOG.toString());
    for (Map.Entry<String, List<long[]>> e : byTable.entrySet()) {
      List<long[]> runs = e.getValue();
      runs.sort((x, y) -> Long.compare(x[2], y[2]));
      Map<Long, Long> pidOfToken = new HashMap<>();
      for (long[] run : runs) {
        assertThat(pidOfToken.putIfAbsent(run[0], run[1])).as("token " + run[0] + " of one process only")
            .isIn(null, run[1]);
      }
      assertThat(pidOfToken.values().stream().distinct().count()).as(e.getKey() + ": both processes maintained it")
          .isGreaterThanOrEqualTo(2);
      for (int i = 1; i < runs.size(); i++) {
        long[] prev = runs.get(i - 1);
        long[] next = runs.get(i);
        if (prev[0] != next[0]) {
          assertThat(next[0]).as(e.getKey() + ": tokens only grow").isGreaterThan(prev[0]);
          assertThat(next[2]).as(e.getKey() + ": token " + next[0] + " started before token " + prev[0] + " ended")
              .isGreaterThanOrEqualTo(prev[3]);
        }
      }
    }
  }
}
