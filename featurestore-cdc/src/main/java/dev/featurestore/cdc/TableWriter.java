package dev.featurestore.cdc;

import java.util.List;
import org.apache.iceberg.Table;

/** Writes one batch into one target table and commits it, stamping the shard's high-water mark. */
interface TableWriter {
  /** What one commit did: the locations of the data files it added, their bytes, the snapshot. */
  record Committed(List<String> files, long bytes, long snapshotId, List<DeadLetter> deadLetters) {}

  Table table();

  String name();

  /**
   * Writes {@code entries} (in sequence order, all above the table's mark) and commits them with
   * the mark {@code lastSeq}. On a failure other than an unknown commit outcome, the files
   * written are deleted before the exception propagates.
   */
  Committed write(List<Logged> entries, long lastSeq, long commitMillis);

  /**
   * Runs the write path once in memory so the first batch does not pay class loading and codec
   * setup; a failure only costs that speed. Writers without a costly setup do nothing.
   */
  default void warmUp() {}

  /**
   * Whether a batch this writer cannot write (a non-retryable failure or an {@code Error}, such as
   * running out of memory) is split to find the entries at fault, which are then dead-lettered
   * and passed over; otherwise the batch stays pending.
   */
  default boolean isolatesFailingEntries() {
    return false;
  }

  /** A batch's files written ahead of its commit, committed or discarded by the writer that wrote them. */
  interface WrittenAhead {
    /** The entries the files hold. */
    List<Logged> entries();

    /** Commits the files with the mark {@code lastSeq}; on a failure other than an unknown outcome they are deleted. */
    Committed commit(long lastSeq);

    /** Deletes the files: they will not be committed. */
    void discard();
  }
}
