package dev.featurestore.cdc;

/**
 * When the write-ahead log forces its bytes to the disk. Under every policy an accepted entry has
 * been handed to the operating system before {@code createEntry} returns, so it survives the
 * death of the process (SIGKILL, OOM kill, crash). Only {@link #EVERY_ENTRY} also survives a
 * power loss or kernel crash for every acknowledged entry.
 */
public enum FsyncPolicy {
  /** fsync before each {@code createEntry} returns: durable against power loss, slowest. */
  EVERY_ENTRY,
  /**
   * fsync each batch's log segment (then the log directory) when the batch is sealed, on the log's
   * background thread, and before the batch is committed: a power loss may lose the open batch and
   * a sealed one whose fsync has not finished (milliseconds).
   */
  EVERY_BATCH,
  /** never fsync: durable against process death only. */
  NONE
}
