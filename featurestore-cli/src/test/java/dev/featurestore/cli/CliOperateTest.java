package dev.featurestore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.SnapshotInfo;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.cdc.CdcPipeline;
import dev.featurestore.cdc.CdcStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands that change a store, as real processes: ingest (with progress lines when piped
 * and a bar when asked), tag, branch, rollback, orphans (a dry run unless --delete), compact and
 * expire; each answer compared with the table as the API sees it afterwards.
 */
class CliOperateTest {
  static final TableId EVENTS = SyntheticFeatures.TABLE_ID;
  static final TableId CDC_LOG = TableId.of("cdc", "log");

  @TempDir static Path dir;
  static Path root;
  static long first;

  @BeforeAll
  static void buildStore() {
    root = dir.resolve("store");
    try (FeatureStore store = FeatureStore.openLocal(root)) {
      FeatureTable events = store.createTable(TableDefinition.builder(EVENTS, SyntheticFeatures.schema()).build());
      first = events.ingest().synthetic(1000, 1).commit().snapshotId().orElseThrow();
      try (CdcPipeline cdc = CdcPipeline.builder(store).changeLog(CDC_LOG).shardId("s1").writeAheadLog(root.resolve("cdc-wal"))
          .flushInterval(Duration.ZERO).build()) {
        cdc.insert("users", "1", Map.of("id", 1));
        cdc.insert("users", "2", Map.of("id", 2));
        cdc.flush();
      }
    }
  }

  private static List<String> cmd(String... args) {
    List<String> c = new ArrayList<>(List.of("--root", root.toString()));
    c.addAll(List.of(args));
    return c;
  }

  @Test
  void operate_ingestRefsRollbackAndMaintenance() throws Exception {
    Path csv = Files.writeString(dir.resolve("rows.csv"), """
        entity_id,event_time,feature_a,feature_b
        1,2026-01-01T00:00:00Z,0.5,
        2,2026-01-01T01:00:00Z,0.7,0.1
        3,2026-01-01T02:00:00Z,,0.2
        """);
    Path bad = Files.writeString(dir.resolve("bad.csv"), """
        entity_id,event_time,feature_a,feature_b
        1,2026-01-01T00:00:00Z,abc,
        """);
    Path orphan = Files.writeString(root.resolve("warehouse/features/feature_events/data/orphan.parquet"), "not referenced");
    Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minus(1, ChronoUnit.DAYS)));

    List<Cli.Result> r = new Cli(dir).batch(List.of(
        cmd("ingest", csv.toString(), "--table", EVENTS.toString(), "--output", "json", "--progress", "plain"),
        cmd("ingest", csv.toString(), "--table", EVENTS.toString(), "--progress", "bar"),
        cmd("ingest", bad.toString(), "--table", EVENTS.toString()),
        cmd("ingest", dir.resolve("missing.csv").toString(), "--table", EVENTS.toString()),
        cmd("tag", EVENTS.toString(), "before", "--snapshot", Long.toString(first), "--output", "json"),
        cmd("branch", EVENTS.toString(), "dev", "--output", "json"),
        cmd("rollback", EVENTS.toString(), "--to", Long.toString(first), "--output", "json"),
        cmd("rollback", EVENTS.toString(), "--to", "1", "--to-time", "2026-01-01"),
        cmd("orphans", EVENTS.toString(), "--older-than", "1h", "--output", "json"),
        cmd("orphans", EVENTS.toString(), "--older-than", "1h", "--delete", "--output", "json"),
        cmd("compact", EVENTS.toString(), "--output", "json", "--progress", "off"),
        cmd("expire", EVENTS.toString(), "--retain-last", "1", "--output", "json"),
        cmd("tier", EVENTS.toString(), "--status"),
        cmd("cdc", "status", CDC_LOG.toString(), "--wal", root.resolve("cdc-wal").toString(), "--output", "json"),
        cmd("cdc", "status", CDC_LOG.toString(), "--wal", root.resolve("no-wal").toString())));

    Cli.Result ingest = r.get(0).succeeded();
    JsonNode added = ingest.json();
    assertThat(added.get("rows").asLong()).isEqualTo(3);
    assertThat(ingest.err()).startsWith("ingest: 3 rows, ");
    Cli.Result bar = r.get(1).succeeded();
    assertThat(bar.err()).startsWith("\ringest ").endsWith("\n");
    assertThat(bar.out()).contains("rows: 3");
    assertThat(r.get(2).exit()).isEqualTo(ExitCodes.BAD_INPUT);
    assertThat(r.get(2).err()).startsWith("featurestore: Cannot ingest row ").contains("feature_a").doesNotContain("\tat ");
    assertThat(r.get(3).exit()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(r.get(3).err()).isEqualTo("featurestore: Cannot ingest file: no such file: " + dir.resolve("missing.csv") + "\n");
    assertThat(r.get(4).succeeded().json().get("snapshot_id").asLong()).isEqualTo(first);
    long devAt = r.get(5).succeeded().json().get("snapshot_id").asLong();
    JsonNode rolledBack = r.get(6).succeeded().json();
    assertThat(rolledBack.get("snapshot_id").asLong()).isEqualTo(first);
    assertThat(r.get(7).exit()).isEqualTo(ExitCodes.BAD_INPUT);
    assertThat(r.get(7).err()).contains("mutually exclusive");

    JsonNode dry = r.get(8).succeeded().json();
    assertThat(dry.get("deleted").asBoolean()).isFalse();
    assertThat(dry.get("orphans")).hasSize(1);
    assertThat(dry.get("orphans").get(0).get("location").asText()).endsWith("/orphan.parquet");
    JsonNode deleted = r.get(9).succeeded().json();
    assertThat(deleted.get("deleted").asBoolean()).isTrue();
    assertThat(orphan).doesNotExist();

    JsonNode compacted = r.get(10).succeeded().json();
    JsonNode expired = r.get(11).succeeded().json();
    assertThat(r.get(12).exit()).isEqualTo(ExitCodes.BAD_INPUT);
    assertThat(r.get(12).err()).startsWith("featurestore: Cannot tier table features.feature_events: the store has no cold storage");

    JsonNode cdc = r.get(13).succeeded().json();
    assertThat(r.get(14).exit()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(r.get(14).err()).isEqualTo("featurestore: Cannot read CDC status: no write-ahead log directory: "
        + root.resolve("no-wal") + "\n");

    try (FeatureStore store = FeatureStore.openLocal(root)) {
      CdcStatus status = CdcStatus.read(store, CDC_LOG, root.resolve("cdc-wal"));
      assertThat(cdc.get("marks")).hasSize(1);
      assertThat(cdc.get("marks").get(0).get("shard").asText()).isEqualTo("s1");
      assertThat(cdc.get("marks").get(0).get("max_seq").asLong()).isEqualTo(status.marks().get("s1")).isEqualTo(2);
      JsonNode wal = cdc.get("wal").get(0);
      CdcStatus.WalShard shard = status.wal().get(0);
      assertThat(wal.get("shard").asText()).isEqualTo(shard.shard());
      assertThat(wal.get("segments").asInt()).isEqualTo(shard.segments());
      assertThat(wal.get("bytes").asLong()).isEqualTo(shard.bytes());
      assertThat(wal.get("committed_mark").asLong()).isEqualTo(shard.committedMark().getAsLong());
      assertThat(wal.get("segments_above_mark").asInt()).isEqualTo(shard.segmentsAboveMark()).isZero();

      FeatureTable events = store.table(EVENTS);
      assertThat(events.snapshots().refs()).containsEntry("before", first).containsEntry("dev", devAt);
      assertThat(events.snapshots().snapshot(devAt).totalRows()).isEqualTo(1006);
      SnapshotInfo current = events.snapshots().current().orElseThrow();
      if (compacted.get("snapshot_id").isNull()) {
        assertThat(current.snapshotId()).isEqualTo(first);
      } else {
        assertThat(current.snapshotId()).isEqualTo(compacted.get("snapshot_id").asLong());
      }
      assertThat(current.totalRows()).isEqualTo(1000);
      List<Long> expiredIds = new ArrayList<>();
      for (String id : expired.get("expired_snapshot_ids").asText().split(",")) {
        if (!id.isEmpty()) {
          expiredIds.add(Long.parseLong(id));
        }
      }
      assertThat(expired.get("expired_snapshots").asInt()).isEqualTo(expiredIds.size());
      for (long id : expiredIds) {
        assertThat(events.snapshots().history().stream().mapToLong(SnapshotInfo::snapshotId)).doesNotContain(id);
      }
    }
  }

  /**
   * {@code compact --size-tiers}: four small files of one size and one much larger (all below the
   * small-file threshold): the tiered compaction merges the four and leaves the large one, a full
   * one then merges both; bad values exit with BAD_INPUT and the library's or the option's message,
   * committing nothing.
   */
  @Test
  void compact_sizeTiers_mergesOnlyFilesOfSimilarSize() throws Exception {
    TableId tiers = TableId.of("features", "tiers");
    try (FeatureStore store = FeatureStore.openLocal(root)) {
      FeatureTable table = store.createTable(TableDefinition.builder(tiers, SyntheticFeatures.schema()).build());
      for (int seed = 1; seed <= 4; seed++) {
        table.ingest().synthetic(100, seed).commit();
      }
      table.ingest().synthetic(100_000, 5).commit();
    }

    List<Cli.Result> r = new Cli(dir).batch(List.of(
        cmd("compact", tiers.toString(), "--size-tiers", "0.5:4"),
        cmd("compact", tiers.toString(), "--size-tiers", "2:1"),
        cmd("compact", tiers.toString(), "--size-tiers", "2"),
        cmd("compact", tiers.toString(), "--size-tiers", "2:four"),
        cmd("compact", tiers.toString(), "--size-tiers", "2:4", "--output", "json", "--progress", "off"),
        cmd("compact", tiers.toString(), "--output", "json", "--progress", "off")));

    assertThat(r.get(0).exit()).isEqualTo(ExitCodes.BAD_INPUT);
    assertThat(r.get(0).err()).isEqualTo("featurestore: Cannot compact size tiers: size ratio must be a number of at least 1: 0.5\n");
    assertThat(r.get(1).exit()).isEqualTo(ExitCodes.BAD_INPUT);
    assertThat(r.get(1).err()).isEqualTo("featurestore: Cannot compact size tiers: files per tier must be at least 2: 1\n");
    for (int i = 2; i <= 3; i++) {
      assertThat(r.get(i).exit()).isEqualTo(ExitCodes.BAD_INPUT);
      assertThat(r.get(i).err()).startsWith("featurestore: Invalid value for option '--size-tiers': expected RATIO:FILES such as"
          + " 2:4 (a size ratio, files per tier), not '" + r.get(i).args().get(r.get(i).args().size() - 1) + "'");
    }
    JsonNode tiered = r.get(4).succeeded().json();
    assertThat(tiered.get("rewritten_data_files").asInt()).isEqualTo(4);
    assertThat(tiered.get("added_data_files").asInt()).isEqualTo(1);
    JsonNode full = r.get(5).succeeded().json();
    assertThat(full.get("rewritten_data_files").asInt()).isEqualTo(2);

    try (FeatureStore store = FeatureStore.openLocal(root)) {
      FeatureTable table = store.table(tiers);
      // five ingests and the two compactions: the refused ones committed nothing
      assertThat(table.snapshots().history()).hasSize(7);
      SnapshotInfo current = table.snapshots().current().orElseThrow();
      assertThat(current.snapshotId()).isEqualTo(full.get("snapshot_id").asLong());
      assertThat(current.totalRows()).isEqualTo(100_400);
    }
  }
}
