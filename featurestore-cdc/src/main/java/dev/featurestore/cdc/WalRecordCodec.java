package dev.featurestore.cdc;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.zip.CRC32;

/**
 * The write-ahead log's record format. A record is framed as {@code int length, int
 * crc32(payload), payload}; the payload is {@code long sequence, byte operation, long accepted
 * millis} and five length-prefixed UTF-8 strings (collection, document id, transaction id, before
 * and after JSON; length -1 for none). Not thread-safe: one codec per log (it reuses its buffer
 * and holds the prepared record).
 */
final class WalRecordCodec {
  /** Bytes before the payload: length and checksum. */
  static final int HEADER_BYTES = 8;
  /** The shortest payload an entry encodes to: sequence, operation, accept time, five length fields. */
  static final int MIN_PAYLOAD_BYTES = 8 + 1 + 8 + 4 * 5;

  private final CRC32 crc = new CRC32();
  /** A scratch buffer for {@link #encode}, reused. */
  private ByteBuffer buffer = ByteBuffer.allocateDirect(64 * 1024);
  /** The parts of the record {@link #prepare} prepared, for {@link #writeTo}. */
  private Logged logged;
  private byte[] collection;
  private byte[] docId;
  private byte[] txn;
  private byte[] before;
  private byte[] after;
  private int frame;

  /** Prepares the record of {@code logged} for {@link #writeTo}; returns its framed size in bytes. */
  int prepare(Logged logged) {
    CdcEntry e = logged.entry;
    this.logged = logged;
    collection = e.collection().getBytes(StandardCharsets.UTF_8);
    docId = e.docId().getBytes(StandardCharsets.UTF_8);
    txn = e.transactionId().map(t -> t.getBytes(StandardCharsets.UTF_8)).orElse(null);
    before = logged.beforeJson == null ? null : logged.beforeJson.getBytes(StandardCharsets.UTF_8);
    after = logged.afterJson == null ? null : logged.afterJson.getBytes(StandardCharsets.UTF_8);
    frame = HEADER_BYTES + MIN_PAYLOAD_BYTES + collection.length + docId.length + len(txn) + len(before) + len(after);
    return frame;
  }

  /**
   * Writes the prepared record, framed, at {@code b}'s position (it needs the size
   * {@link #prepare} returned); {@code b}'s position ends after the record.
   */
  void writeTo(ByteBuffer b) {
    int start = b.position();
    int limit = b.limit();
    b.position(start + HEADER_BYTES);
    CdcEntry e = logged.entry;
    b.putLong(e.sequenceId());
    b.put((byte) e.operation().ordinal());
    b.putLong(logged.acceptedMillis);
    putBytes(b, collection);
    putBytes(b, docId);
    putBytes(b, txn);
    putBytes(b, before);
    putBytes(b, after);
    int end = b.position();
    crc.reset();
    b.limit(end).position(start + HEADER_BYTES);
    crc.update(b); // not through duplicate(): an allocation per record
    b.limit(limit);
    b.putInt(start, end - start - HEADER_BYTES);
    b.putInt(start + 4, (int) crc.getValue());
    logged = null;
  }

  /**
   * Encodes one record, framed; the buffer returned is ready to write (position 0, limit at the
   * end of the record) and is reused by the next call.
   */
  ByteBuffer encode(Logged logged) {
    int size = prepare(logged);
    if (buffer.capacity() < size) {
      buffer = ByteBuffer.allocateDirect(Math.max(size, buffer.capacity() * 2));
    }
    ByteBuffer b = buffer;
    b.clear();
    writeTo(b);
    b.flip();
    return b;
  }

  /** Null if a whole record with a matching checksum starts at {@code pos}, else what is wrong there. */
  static String problemAt(ByteBuffer all, int pos) {
    int remaining = all.limit() - pos;
    if (remaining < HEADER_BYTES) {
      return "torn record header";
    }
    int length = all.getInt(pos);
    if (length < 0 || length > remaining - HEADER_BYTES) {
      return "torn record of " + length + " bytes";
    }
    if (length < MIN_PAYLOAD_BYTES) {
      // eight zero bytes would frame an empty payload with a matching CRC-32 (0): never a record
      return "record too short for an entry: " + length + " bytes";
    }
    CRC32 check = new CRC32();
    check.update(all.duplicate().position(pos + HEADER_BYTES).limit(pos + HEADER_BYTES + length));
    return (int) check.getValue() == all.getInt(pos + 4) ? null : "checksum mismatch";
  }

  /** The entry in a record's payload (a heap buffer positioned at the payload). */
  static Logged decode(ByteBuffer b) {
    long seq = b.getLong();
    CdcOperation op = CdcOperation.values()[b.get()];
    long accepted = b.getLong();
    String collection = getString(b);
    String docId = getString(b);
    String txn = getString(b);
    String before = getString(b);
    String after = getString(b);
    CdcEntry entry = new CdcEntry(seq, op, collection, docId, "", Optional.empty(), Optional.empty(), Optional.ofNullable(txn));
    return new Logged(entry, accepted, before, after);
  }

  private static int len(byte[] bytes) {
    return bytes == null ? 0 : bytes.length;
  }

  private static void putBytes(ByteBuffer b, byte[] bytes) {
    if (bytes == null) {
      b.putInt(-1);
    } else {
      b.putInt(bytes.length);
      b.put(bytes);
    }
  }

  private static String getString(ByteBuffer b) {
    int n = b.getInt();
    if (n < 0) {
      return null;
    }
    String s = new String(b.array(), b.arrayOffset() + b.position(), n, StandardCharsets.UTF_8);
    b.position(b.position() + n);
    return s;
  }
}
