package dev.featurestore.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.ObjectStorage;
import dev.featurestore.QueryResult;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.core.storage.s3.S3TestServer;
import dev.featurestore.core.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's demos as the README runs them, each in its own JVM: the quickstart's {@code --b2}
 * mode with the {@code B2_*} variables pointing at the loopback S3 server behind the gate that
 * answers as B2 does, and {@code CdcCrashDemo} (a streaming child killed with SIGKILL, a restart,
 * nothing lost or doubled), checked from its output and from the tables.
 */
class ExamplesRunTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir Path dir;

  @Test
  void quickstart_b2_keepsItsTablesInTheBucket_throughTheB2Gate() throws Exception {
    Path root = dir.resolve("quickstart-b2");
    Map<String, String> env = Map.of(
        ObjectStorage.ENV_BUCKET, S3TestServer.BUCKET,
        ObjectStorage.ENV_ENDPOINT, s3.gate().endpoint(),
        ObjectStorage.ENV_REGION, S3TestServer.REGION,
        ObjectStorage.ENV_KEY_ID, S3TestServer.KEY_ID,
        ObjectStorage.ENV_KEY, S3TestServer.SECRET);
    List<String> out;
    try (ChildJvm quickstart = ChildJvm.start(Quickstart.class, dir, env, root.toString(), "--b2")) {
      assertThat(quickstart.waitFor(Duration.ofMinutes(5))).as("exit code; stderr in %s", dir).contains(0);
      out = quickstart.lines();
    }
    String table = "s3://" + S3TestServer.BUCKET + "/warehouse/features/feature_events";
    assertThat(out).first().asString().endsWith("(tables on B2)");
    assertThat(out).contains("created features.feature_events at " + table, "== done")
        .anySatisfy(l -> assertThat(l).startsWith("append #1: 100000 rows"))
        .anySatisfy(l -> assertThat(l).startsWith("append #3: 25000 rows"))
        .anySatisfy(l -> assertThat(l).matches("snapshot \\d+ reads 100000 rows with columns \\[entity_id, event_time, feature_a, feature_b\\]"))
        .anySatisfy(l -> assertThat(l).matches("rolled back to \\d+: table has 150000 rows"))
        .anySatisfy(l -> assertThat(l).startsWith("stats: rows=150000 "));
    assertThat(s3.gate().refusals()).isEmpty();
    assertThat(s3.keys("warehouse/features/feature_events/data/")).isNotEmpty();
    assertThat(root.resolve("catalog.db")).isRegularFile();
    assertThat(root.resolve("warehouse")).doesNotExist();
    try (FeatureStore store = FeatureStore.builder().root(root).objectStorage(s3.b2ThroughGate()).build()) {
      FeatureTable events = store.table(SyntheticFeatures.TABLE_ID);
      assertThat(events.location()).isEqualTo(table);
      assertThat(events.query().count()).isEqualTo(150_000);
    }
  }

  @Test
  void cdcCrashDemo_afterSigkillAndRestart_losesAndDoublesNothing() throws Exception {
    Path store = dir.resolve("cdc-demo");
    List<String> out;
    try (ChildJvm demo = ChildJvm.start(CdcCrashDemo.class, dir, store.toString())) {
      assertThat(demo.waitFor(Duration.ofMinutes(5))).as("exit code; stderr in %s", dir).contains(0);
      out = demo.lines();
    }
    String killed = line(out, "killed the streaming process with SIGKILL after (\\d+) acknowledged changes \\(last seq (\\d+)\\)");
    long acknowledged = Long.parseLong(group(killed, "after (\\d+)"));
    long lastSeq = Long.parseLong(group(killed, "last seq (\\d+)"));
    assertThat(acknowledged).isGreaterThan(2_000);
    line(out, "restarted: table marks .*, replayed \\d+ changes from the write-ahead log");
    line(out, "change log: \\d+ rows, \\d+ distinct sequences, every acknowledged change present: true, duplicates: none");
    assertThat(out).last().isEqualTo("nothing lost, nothing doubled");

    // the tables say the same: every acknowledged sequence id once
    try (FeatureStore reopened = FeatureStore.openLocal(store)) {
      TreeSet<Long> seqs = new TreeSet<>();
      long rows = 0;
      try (QueryResult result = reopened.table(CdcCrashDemo.LOG).query().select("seq").execute()) {
        for (var row : result) {
          seqs.add(((Number) row.toMap().get("seq")).longValue());
          rows++;
        }
      }
      assertThat(rows).isEqualTo(seqs.size());
      assertThat(seqs.first()).isEqualTo(1);
      assertThat(seqs.last()).isGreaterThanOrEqualTo(lastSeq);
      assertThat(seqs.last() - seqs.first() + 1).as("no gap below the last sequence").isEqualTo(seqs.size());
      assertThat(reopened.table(CdcCrashDemo.STATE).query().count()).isBetween(1L, 1_000L);
    }
  }

  private static String line(List<String> out, String regex) {
    Pattern pattern = Pattern.compile(regex);
    return out.stream().filter(l -> pattern.matcher(l).matches()).findFirst()
        .orElseThrow(() -> new AssertionError("no line matches " + regex + " in:\n" + String.join("\n", out)));
  }

  private static String group(String line, String regex) {
    Matcher m = Pattern.compile(regex).matcher(line);
    assertThat(m.find()).isTrue();
    return m.group(1);
  }
}
