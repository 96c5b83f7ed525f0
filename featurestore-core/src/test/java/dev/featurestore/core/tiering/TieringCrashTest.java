package dev.featurestore.core.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.TableId;
import dev.featurestore.TieringResult;
import dev.featurestore.TieringStatus;
import dev.featurestore.core.storage.s3.S3TestServer;
import dev.featurestore.core.testing.ChildJvm;
import dev.featurestore.core.tiering.TieringTest.Observed;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Real process death in the middle of a move: a child JVM ({@link TieringCrashChild}) tiers a
 * table one file per commit and is killed with SIGKILL while paused before or after a commit, or
 * after a delay. The table reopened in this JVM is readable with identical results, and a second
 * run finishes the move leaving no hot leftovers and no unreferenced cold objects.
 */
class TieringCrashTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir Path root;

  /** Kills the child at a point or after {@code killAfterMillis}; returns the lines it printed. */
  private List<String> runChild(String name, String point, int batch, long killAfterMillis) throws Exception {
    try (ChildJvm child = ChildJvm.start(TieringCrashChild.class, root, root.toString(), s3.gate().endpoint(),
        S3TestServer.REGION, S3TestServer.BUCKET, S3TestServer.KEY_ID, S3TestServer.SECRET, point,
        Integer.toString(batch), name)) {
      if (child.await("STARTED", Duration.ofSeconds(120)).isPresent()) {
        if (killAfterMillis >= 0) {
          Thread.sleep(killAfterMillis);
        } else {
          child.await("PAUSED", Duration.ofSeconds(120)); // or the end, if it never pauses
        }
      }
      child.kill(); // SIGKILL on Linux
      return child.lines();
    }
  }

  @ParameterizedTest(name = "killed {0} batch {1}, delay {2} ms")
  @CsvSource({"before-commit, 1, -1", "after-commit, 0, -1", "after-commit, 2, -1", "none, 0, 300"})
  void childKilledMidMove_tableStaysReadable_andTheNextRunFinishes(String point, int batch, long delay) throws Exception {
    String name = "crash_" + point.replace('-', '_') + "_" + batch;
    List<Long> snapshots;
    Observed before;
    try (FeatureStore store = FeatureStore.builder().root(root).coldStorage(s3.b2ThroughGate()).build()) {
      FeatureTable table = TieringTest.create(store, name, false);
      snapshots = TieringTest.fourCommits(table, 1);
      before = TieringTest.observe(table, snapshots.get(1));
    }
    List<String> lines = runChild(name, point, batch, delay);
    assertThat(lines).contains("STARTED");
    if (delay < 0) {
      assertThat(lines).contains("PAUSED");
    }

    try (FeatureStore store = FeatureStore.builder().root(root).coldStorage(s3.b2ThroughGate()).build()) {
      FeatureTable table = store.table(TableId.of("tiering", name));
      assertThat(TieringTest.observe(table, snapshots.get(1))).isEqualTo(before);
      TieringStatus status = table.tiering().status();
      assertThat(status.hotDataFiles() + status.coldDataFiles()).isEqualTo(4);
      if (point.equals("after-commit")) {
        assertThat(status.coldDataFiles()).isEqualTo(batch + 1);
      } else if (point.equals("before-commit")) {
        assertThat(status.coldDataFiles()).isEqualTo(batch);
      }

      TieringResult rest = table.tiering().olderThan(Duration.ZERO).execute();
      assertThat(rest.filesMoved()).isEqualTo(status.hotDataFiles());
      assertThat(TieringTest.observe(table, snapshots.get(1))).isEqualTo(before);
      List<String> live = TieringTest.liveFiles(table);
      assertThat(live).allSatisfy(f -> assertThat(f).startsWith("s3://"));
      // no hot data file is left, and the cold bucket holds exactly the live files
      for (String cold : live) {
        String file = cold.substring(cold.lastIndexOf('/') + 1);
        assertThat(root.resolve("warehouse/tiering/" + name + "/data").resolve(file)).doesNotExist();
      }
      List<String> keys = s3.keys(TieringTest.coldPrefix(name));
      assertThat(new HashSet<>(keys)).isEqualTo(new HashSet<>(
          live.stream().map(l -> l.substring(("s3://" + S3TestServer.BUCKET + "/").length())).toList()));
      Table iceberg = table.unwrap(Table.class);
      assertThat(iceberg.snapshot(snapshots.get(1))).isNotNull();
    }
  }
}
