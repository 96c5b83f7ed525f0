package dev.featurestore.cdc;

import java.util.Optional;

/**
 * An accepted entry as the pipeline holds it: the entry (its sequence id, operation, collection,
 * doc id, shard and transaction id), when it was accepted, and its images as JSON text (what the
 * write-ahead log and the change log store). The images are kept as that text only: {@code entry}
 * has none, so accepting an entry copies no map; {@link #withImages()} reads them back.
 */
final class Logged {
  final CdcEntry entry;
  final long acceptedMillis;
  final String beforeJson;
  final String afterJson;

  Logged(CdcEntry entry, long acceptedMillis, String beforeJson, String afterJson) {
    this.entry = entry;
    this.acceptedMillis = acceptedMillis;
    this.beforeJson = beforeJson;
    this.afterJson = afterJson;
  }

  long seq() {
    return entry.sequenceId();
  }

  /** The entry with its images read back from their JSON (for a dead letter). */
  CdcEntry withImages() {
    return new CdcEntry(entry.sequenceId(), entry.operation(), entry.collection(), entry.docId(), entry.shardId(),
        beforeJson == null ? Optional.empty() : Optional.of(Json.read(beforeJson)),
        afterJson == null ? Optional.empty() : Optional.of(Json.read(afterJson)), entry.transactionId());
  }
}
