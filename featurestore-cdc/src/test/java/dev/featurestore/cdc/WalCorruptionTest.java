package dev.featurestore.cdc;

import static dev.featurestore.cdc.CdcTestSupport.LOG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Recovery of a damaged write-ahead log: a torn tail is cut silently, any other damage only when asked. */
class WalCorruptionTest {
  @TempDir Path dir;

  private Path wal() {
    return dir.resolve("wal");
  }

  /** Five accepted entries (sequences 1..5) in one segment, never committed; returns the segment. */
  private Path logFive() throws IOException {
    try (WriteAheadLog log = new WriteAheadLog(wal(), "w", FsyncPolicy.EVERY_ENTRY, Hooks.NONE)) {
      for (int i = 1; i <= 5; i++) {
        Map<String, Object> doc = Map.of("id", i);
        CdcEntry e = new CdcEntry(i, CdcOperation.INSERT, "users", Integer.toString(i), "w", Optional.empty(),
            Optional.of(doc), Optional.empty());
        log.append(new Logged(e, System.currentTimeMillis(), null, Json.write(doc)));
      }
    }
    try (Stream<Path> files = Files.list(wal().resolve("w"))) {
      return files.filter(p -> p.getFileName().toString().endsWith(".log")).findFirst().orElseThrow();
    }
  }

  /** Byte offsets of the records of a segment. */
  private static List<Integer> offsets(Path segment) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(segment));
    List<Integer> offsets = new ArrayList<>();
    while (b.remaining() >= 8) {
      offsets.add(b.position());
      int length = b.getInt();
      b.position(b.position() + 4 + length);
    }
    return offsets;
  }

  /** Flips one bit in the payload of record {@code index} (0-based); returns the record's offset. */
  private static int flipBitInRecord(Path segment, int index) throws IOException {
    int offset = offsets(segment).get(index);
    byte[] bytes = Files.readAllBytes(segment);
    bytes[offset + 8 + 20] ^= 0x04;
    Files.write(segment, bytes);
    return offset;
  }

  private CdcPipeline.Builder pipeline(FeatureStore store) {
    return CdcPipeline.builder(store).changeLog(LOG).shardId("w").writeAheadLog(wal()).flushInterval(Duration.ZERO);
  }

  @Test
  void badRecordFollowedByValidOnes_failsTheOpen_namingSegmentAndOffset() throws IOException {
    Path segment = logFive();
    int offset = flipBitInRecord(segment, 1);
    long size = Files.size(segment);
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      assertThatThrownBy(() -> pipeline(store).build())
          .isInstanceOfSatisfying(WalCorruptionException.class, e -> {
            assertThat(e.segment()).isEqualTo(segment.toString());
            assertThat(e.offset()).isEqualTo(offset);
          })
          .hasMessage("Cannot recover CDC write-ahead log: corrupt record followed by valid records (not a torn tail);"
              + " open with walRecovery(POINT_IN_TIME) or walRecovery(SKIP_CORRUPTED) to proceed: checksum mismatch at offset "
              + offset + ": " + segment);
      // nothing changed on disk, and the shard is free again
      assertThat(Files.size(segment)).isEqualTo(size);
      try (CdcPipeline cdc = pipeline(store).walRecovery(WalRecovery.POINT_IN_TIME).build()) {
        assertThat(cdc.recoveredEntries()).isEqualTo(1);
        cdc.flush();
      }
      assertThat(CdcTestSupport.sequences(store, LOG)).containsExactly(1L);
    }
  }

  @Test
  void skipCorrupted_keepsTheValidRecordsAfterTheBadOne() throws IOException {
    Path segment = logFive();
    flipBitInRecord(segment, 1);
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      try (CdcPipeline cdc = pipeline(store).walRecovery(WalRecovery.SKIP_CORRUPTED).build()) {
        assertThat(cdc.recoveredEntries()).isEqualTo(4);
        assertThat(cdc.skippedWalRecords()).isEqualTo(1);
        cdc.flush();
        assertThat(cdc.insert("users", "6", Map.of("id", 6))).isEqualTo(6);
      }
      assertThat(CdcTestSupport.sequences(store, LOG)).containsExactlyInAnyOrder(1L, 3L, 4L, 5L, 6L);
      // the default mode opens the log again: the skipped record is gone from it
      try (CdcPipeline cdc = pipeline(store).build()) {
        assertThat(cdc.recoveredEntries()).isZero();
      }
    }
  }

  @Test
  void tornLastRecord_isCutOffSilently() throws IOException {
    Path segment = logFive();
    int last = offsets(segment).get(4);
    long size = Files.size(segment);
    try (var channel = java.nio.channels.FileChannel.open(segment, java.nio.file.StandardOpenOption.WRITE)) {
      channel.truncate(last + (size - last) / 2);
    }
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      try (CdcPipeline cdc = pipeline(store).build()) {
        assertThat(cdc.recoveredEntries()).isEqualTo(4);
        assertThat(cdc.skippedWalRecords()).isZero();
      }
      assertThat(CdcTestSupport.sequences(store, LOG)).containsExactlyInAnyOrder(1L, 2L, 3L, 4L);
    }
  }

  /**
   * A segment is zero-filled ahead of its records and cut to their length when sealed; a process
   * killed before that leaves the zeros: unwritten space, neither a torn record nor corruption.
   */
  @Test
  void zeroFilledTail_isUnwrittenSpace() throws IOException {
    Path segment = logFive();
    try (var channel = java.nio.channels.FileChannel.open(segment, java.nio.file.StandardOpenOption.APPEND)) {
      channel.write(ByteBuffer.allocate(1 << 20));
    }
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      try (CdcPipeline cdc = pipeline(store).build()) {
        assertThat(cdc.recoveredEntries()).isEqualTo(5);
        assertThat(cdc.skippedWalRecords()).isZero();
      }
      assertThat(CdcTestSupport.sequences(store, LOG)).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L);
    }
  }

  @Test
  void zerosFollowedByValidRecords_areCorruption() throws IOException {
    Path segment = logFive();
    int second = offsets(segment).get(1);
    int third = offsets(segment).get(2);
    byte[] bytes = Files.readAllBytes(segment);
    java.util.Arrays.fill(bytes, second, third, (byte) 0);
    Files.write(segment, bytes);
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      assertThatThrownBy(() -> pipeline(store).build()).isInstanceOf(WalCorruptionException.class);
    }
  }

  @Test
  void badLastRecord_isATornTail() throws IOException {
    Path segment = logFive();
    flipBitInRecord(segment, 4);
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      try (CdcPipeline cdc = pipeline(store).build()) {
        assertThat(cdc.recoveredEntries()).isEqualTo(4);
      }
      assertThat(CdcTestSupport.sequences(store, LOG)).containsExactlyInAnyOrder(1L, 2L, 3L, 4L);
    }
  }
}
