package dev.featurestore.cdc;

import static dev.featurestore.cdc.CdcTestSupport.LOG;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link CdcStatus}: marks and write-ahead log read beside a running pipeline, without touching it. */
class CdcStatusTest {
  @TempDir Path dir;

  @Test
  void status_showsAcceptedEntriesInTheLog_thenTheMarkAfterTheFlush() {
    Path wal = dir.resolve("wal");
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
         CdcPipeline cdc = CdcPipeline.builder(store).changeLog(LOG).shardId("s1").writeAheadLog(wal)
             .flushInterval(Duration.ZERO).build()) {
      cdc.insert("users", "1", Map.of("id", 1));
      cdc.insert("users", "2", Map.of("id", 2));
      cdc.update("users", "1", Map.of("id", 1, "name", "Ann"));

      CdcStatus accepted = CdcStatus.read(store, LOG, wal);
      assertThat(accepted.table()).isEqualTo(LOG);
      assertThat(accepted.marks()).isEmpty();
      assertThat(accepted.wal()).hasSize(1);
      CdcStatus.WalShard shard = accepted.wal().get(0);
      assertThat(shard.shard()).isEqualTo("s1");
      assertThat(shard.segments()).isEqualTo(1);
      assertThat(shard.bytes()).isPositive();
      assertThat(shard.firstSequence()).isEqualTo(OptionalLong.of(1));
      assertThat(shard.committedMark()).isEmpty();
      assertThat(shard.segmentsAboveMark()).isEqualTo(1);

      cdc.flush();
      CdcStatus committed = CdcStatus.read(store, LOG, wal);
      assertThat(committed.marks()).isEqualTo(Map.of("s1", 3L));
      CdcStatus.WalShard after = committed.wal().get(0);
      assertThat(after.committedMark()).isEqualTo(OptionalLong.of(3));
      assertThat(after.segmentsAboveMark()).isZero();
      assertThat(CdcStatus.read(store, LOG).wal()).isEmpty();
      assertThat(CdcStatus.read(store, LOG).marks()).isEqualTo(committed.marks());

      cdc.insert("users", "3", Map.of("id", 3)); // the pipeline still runs: the status took nothing from it
      assertThat(cdc.flush().entries()).isEqualTo(1);
      assertThat(CdcStatus.read(store, LOG).marks()).isEqualTo(Map.of("s1", 4L));
    }
  }

  @Test
  void shard_leavesOutASegmentDeletedAfterTheListing() throws Exception {
    Path shardDir = Files.createDirectories(dir.resolve("wal").resolve("s1"));
    Path committed = Files.write(shardDir.resolve("wal-00000000000000000001.log"), new byte[10]);
    Path open = Files.write(shardDir.resolve("wal-00000000000000000004.log"), new byte[7]);
    List<Path> listed = WriteAheadLog.segments(shardDir, "read");
    assertThat(listed).containsExactly(committed, open);
    Files.delete(committed); // the pipeline's background thread deleted it once it was committed

    CdcStatus.WalShard shard = CdcStatus.shard("s1", listed, 3L);
    assertThat(shard.segments()).isEqualTo(1);
    assertThat(shard.bytes()).isEqualTo(7);
    assertThat(shard.firstSequence()).isEqualTo(OptionalLong.of(4));
    assertThat(shard.committedMark()).isEqualTo(OptionalLong.of(3));
    assertThat(shard.segmentsAboveMark()).isEqualTo(1);
  }
}
