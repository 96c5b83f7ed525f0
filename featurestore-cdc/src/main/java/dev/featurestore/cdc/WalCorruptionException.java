package dev.featurestore.cdc;

import dev.featurestore.StorageException;

/**
 * The write-ahead log holds a bad record followed by valid ones: not a torn tail, but damage to
 * acknowledged entries. The message names the segment file and the byte offset of the bad
 * record. Nothing was changed; open with an explicit {@link WalRecovery} mode to proceed.
 */
public class WalCorruptionException extends StorageException {
  private final String segment;
  private final long offset;

  public WalCorruptionException(String message, String segment, long offset) {
    super(message);
    this.segment = segment;
    this.offset = offset;
  }

  /** The segment file holding the bad record. */
  public String segment() {
    return segment;
  }

  /** The byte offset of the bad record in its segment. */
  public long offset() {
    return offset;
  }
}
