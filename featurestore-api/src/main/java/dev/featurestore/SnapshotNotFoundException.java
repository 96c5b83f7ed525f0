package dev.featurestore;

/** A snapshot id, timestamp or ref does not resolve to a snapshot of the table. */
public class SnapshotNotFoundException extends NotFoundException {
  public SnapshotNotFoundException(String message) {
    super(message);
  }
}
