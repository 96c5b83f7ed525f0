package dev.featurestore.cdc;

import java.util.List;
import org.apache.iceberg.Table;

/** Writes one batch into one target table and commits it, stamping the shard's high-water mark. */
interface TableWriter {
  /** What one commit did. */
  record Committed(int files, long bytes, long snapshotId, List<DeadLetter> deadLetters) {}

  Table table();

  String name();

  /**
   * Writes {@code entries} (in sequence order, all above the table's mark) and commits them with
   * the mark {@code lastSeq}. On a failure other than an unknown commit outcome, the files
   * written are deleted before the exception propagates.
   */
  Committed write(List<Logged> entries, long lastSeq, long commitMillis);
}
