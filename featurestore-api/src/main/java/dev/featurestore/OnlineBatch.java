package dev.featurestore;

import java.util.List;
import java.util.Optional;

/**
 * The rows of a batch read, in the order of the keys asked for, all read from one state of the
 * view (one snapshot, never part of a materialization).
 *
 * @param rows one row per key asked for (a key asked twice appears twice)
 * @param snapshotId the source snapshot the view reflected (-1: never materialized)
 */
public record OnlineBatch(List<OnlineRow> rows, long snapshotId) {
  public OnlineBatch {
    rows = List.copyOf(rows);
  }

  /** The first row for {@code key} (compared with {@code equals}), if it was asked for. */
  public Optional<OnlineRow> row(Object key) {
    return rows.stream().filter(r -> r.key().equals(key)).findFirst();
  }
}
