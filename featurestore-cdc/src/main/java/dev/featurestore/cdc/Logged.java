package dev.featurestore.cdc;

/**
 * An accepted entry as the pipeline holds it: the entry (with its sequence id), when it was
 * accepted, and its images as JSON text (what the write-ahead log and the change log store).
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
}
