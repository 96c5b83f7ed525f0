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
  /** fsync when a batch is sealed for commit: a power loss may lose the unsealed batch. */
  EVERY_BATCH,
  /** never fsync: durable against process death only. */
  NONE
}
