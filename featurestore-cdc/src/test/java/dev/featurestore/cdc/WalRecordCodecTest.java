package dev.featurestore.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WalRecordCodecTest {
  private static ByteBuffer record(long seq) {
    CdcEntry e = new CdcEntry(seq, CdcOperation.INSERT, "users", "1", "w", Optional.empty(), Optional.of(Map.of("id", 1)),
        Optional.empty());
    ByteBuffer encoded = new WalRecordCodec().encode(new Logged(e, 1_000L, null, Json.write(Map.of("id", 1))));
    ByteBuffer copy = ByteBuffer.allocate(encoded.remaining());
    copy.put(encoded).flip();
    return copy;
  }

  @Test
  void aRecord_roundTrips_andAnyFlippedPayloadBitIsAProblem() {
    ByteBuffer r = record(7);
    assertThat(WalRecordCodec.problemAt(r, 0)).isNull();
    assertThat(WalRecordCodec.decode(r.duplicate().position(WalRecordCodec.HEADER_BYTES).slice()).seq()).isEqualTo(7);
    r.put(WalRecordCodec.HEADER_BYTES + 3, (byte) (r.get(WalRecordCodec.HEADER_BYTES + 3) ^ 0x10));
    assertThat(WalRecordCodec.problemAt(r, 0)).isEqualTo("checksum mismatch");
  }

  /**
   * Eight zero bytes frame an empty payload whose CRC-32 is 0. They occur inside real records (a
   * checksum ending in a zero byte followed by a small sequence id's seven high zero bytes), and
   * recovery resynchronising after a corrupt record byte by byte took them for a record: one bad
   * record was counted as two skipped under SKIP_CORRUPTED. No real record is that short.
   */
  @Test
  void zeroBytes_areNotARecord() {
    ByteBuffer zeros = ByteBuffer.allocate(64);
    assertThat(WalRecordCodec.problemAt(zeros, 0)).isEqualTo("record too short for an entry: 0 bytes");
  }
}
