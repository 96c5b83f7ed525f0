package dev.featurestore.cdc;

/**
 * What the pipeline does, when it opens, with a write-ahead log record that fails its checksum or
 * framing (after RocksDB's WAL recovery modes). A torn tail, an incomplete <em>last</em> record of
 * the last segment, is a write cut short by the death of the process and was never acknowledged:
 * every mode cuts it off silently.
 */
public enum WalRecovery {
  /**
   * The default: only a torn tail is cut off. A bad record followed by valid ones (bit rot, a
   * foreign write) stops the pipeline from opening with {@link WalCorruptionException}, naming
   * the segment and the byte offset, and nothing is changed on disk.
   */
  TOLERATE_TORN_TAIL,
  /**
   * Keeps every record before the first bad one and drops that record and everything after it
   * (in its segment and in later segments): the log is consistent up to a point in time.
   */
  POINT_IN_TIME,
  /**
   * Skips each bad record and keeps the valid ones after it (a record is found again by its
   * framing: each skipped record is logged at WARN and counted in
   * {@link CdcPipeline#skippedWalRecords()}).
   */
  SKIP_CORRUPTED
}
