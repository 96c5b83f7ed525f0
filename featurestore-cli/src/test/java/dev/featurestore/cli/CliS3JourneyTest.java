package dev.featurestore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.ObjectStorage;
import dev.featurestore.SnapshotInfo;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.core.storage.s3.S3TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * One journey through a store whose warehouse is a bucket: the loopback S3 server behind the
 * gate that answers as B2 does, reached from the child process with the B2_* variables (and the
 * store root from FEATURESTORE_ROOT). The doctor, reads compared with the API, SQL, ingest, and
 * the object commands with the browser's guards; then the doctor naming a missing variable.
 */
class CliS3JourneyTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  static final TableId EVENTS = SyntheticFeatures.TABLE_ID;

  @TempDir static Path dir;
  static Path root;

  @BeforeAll
  static void buildStore() {
    root = dir.resolve("store");
    try (FeatureStore store = FeatureStore.builder().root(root).objectStorage(s3.b2ThroughGate()).build()) {
      FeatureTable events = store.createTable(TableDefinition.builder(EVENTS, SyntheticFeatures.schema()).build());
      events.ingest().synthetic(300, 1).commit();
    }
  }

  private static Cli cli(boolean withKey) {
    Cli cli = new Cli(dir)
        .env(GlobalOptions.ENV_ROOT, root.toString())
        .env(ObjectStorage.ENV_BUCKET, S3TestServer.BUCKET)
        .env(ObjectStorage.ENV_ENDPOINT, s3.gate().endpoint())
        .env(ObjectStorage.ENV_REGION, S3TestServer.REGION)
        .env(ObjectStorage.ENV_KEY_ID, S3TestServer.KEY_ID);
    return withKey ? cli.env(ObjectStorage.ENV_KEY, S3TestServer.SECRET) : cli;
  }

  @Test
  void bucketJourney_throughTheB2Gate() throws Exception {
    Path local = Files.writeString(dir.resolve("events.csv"), """
        entity_id,event_time,feature_a,feature_b
        7,2026-01-01T00:00:00Z,0.5,0.25
        """);
    String dataKey;
    try (FeatureStore store = FeatureStore.builder().root(root).objectStorage(s3.b2ThroughGate()).build()) {
      dataKey = store.objects().listAll("warehouse/").filter(o -> o.key().endsWith(".parquet")).findFirst().orElseThrow().key();
    }
    List<Cli.Result> r = cli(true).batch(List.of(
        List.of("doctor", "--b2", "--output", "json"),
        List.of("history", EVENTS.toString(), "--b2", "--output", "json"),
        List.of("sql", "SELECT count(*) AS n FROM feature_events", "--b2", "--output", "json"),
        List.of("objects", "put", local.toString(), "events.csv", "--b2", "--output", "json", "--progress", "plain"),
        List.of("objects", "ls", "raw/", "--b2", "--output", "json"),
        List.of("objects", "head", "raw/events.csv", "--b2", "--output", "json"),
        List.of("objects", "get", "raw/events.csv", "--b2"),
        List.of("ingest", local.toString(), "--table", EVENTS.toString(), "--b2", "--output", "json"),
        List.of("objects", "rm", dataKey, "--b2"),
        List.of("objects", "head", "../etc/passwd", "--b2"),
        List.of("objects", "rm", "raw/events.csv", "--b2"),
        List.of("objects", "head", "raw/events.csv", "--b2"),
        List.of("files", EVENTS.toString(), "--b2", "--output", "json")));

    JsonNode doctor = r.get(0).succeeded().json();
    List<String> failed = new ArrayList<>();
    doctor.forEach(c -> {
      if (c.get("status").asText().equals("FAIL")) {
        failed.add(c.get("check").asText());
      }
    });
    assertThat(failed).isEmpty();
    assertThat(doctor.toString()).doesNotContain(S3TestServer.SECRET);

    try (FeatureStore store = FeatureStore.builder().root(root).objectStorage(s3.b2ThroughGate()).build()) {
      FeatureTable events = store.table(EVENTS);
      List<SnapshotInfo> history = events.snapshots().history();
      JsonNode h = r.get(1).succeeded().json();
      assertThat(h.get(0).get("snapshot_id").asLong()).isEqualTo(history.get(0).snapshotId());
      assertThat(h.get(0).get("added_rows").asLong()).isEqualTo(300);
      assertThat(r.get(2).succeeded().json().get(0).get("n").asLong()).isEqualTo(300);

      JsonNode put = r.get(3).succeeded().json();
      assertThat(put.get("key").asText()).isEqualTo("raw/events.csv");
      assertThat(put.get("bytes").asLong()).isEqualTo(Files.size(local));
      assertThat(r.get(3).err()).contains("put: ");
      JsonNode ls = r.get(4).succeeded().json();
      assertThat(ls.get(0).get("key").asText()).isEqualTo("raw/events.csv");
      assertThat(r.get(5).succeeded().json().get("size").asLong()).isEqualTo(Files.size(local));
      assertThat(r.get(6).succeeded().out()).isEqualTo(Files.readString(local));
      assertThat(r.get(7).succeeded().json().get("rows").asLong()).isEqualTo(1);
      assertThat(r.get(8).exit()).isEqualTo(ExitCodes.BAD_INPUT);
      assertThat(r.get(8).err()).isEqualTo("featurestore: Cannot delete object: key is under warehouse/ (table data); "
          + "pass force to delete it anyway: " + dataKey + "\n");
      assertThat(store.objects().head(dataKey).size()).isPositive();
      assertThat(r.get(9).exit()).isEqualTo(ExitCodes.BAD_INPUT);
      assertThat(r.get(9).err()).startsWith("featurestore: Cannot use object key: ");
      assertThat(r.get(10).succeeded().out()).isEqualTo("deleted raw/events.csv\n");
      assertThat(r.get(11).exit()).isEqualTo(ExitCodes.NOT_FOUND);
      assertThat(events.snapshots().current().orElseThrow().totalRows()).isEqualTo(301);
      JsonNode files = r.get(12).succeeded().json();
      assertThat(files).hasSize(2);
      files.forEach(f -> assertThat(f.get("path").asText()).startsWith("s3://" + S3TestServer.BUCKET + "/warehouse/"));
    }
    r.forEach(x -> assertThat(x.out() + x.err()).as("output of %s", x.args()).doesNotContain(S3TestServer.SECRET));

    Cli.Result noKey = cli(false).run("doctor", "--b2");
    assertThat(noKey.exit()).isEqualTo(ExitCodes.FAILED);
    assertThat(noKey.out().lines().filter(l -> l.startsWith("FAIL")).toList())
        .containsExactly("FAIL    setting B2_APPLICATION_KEY     missing                 set B2_APPLICATION_KEY to the applicationKey shown once when the key was created");
  }
}
