package dev.featurestore;

import java.util.Collection;
import java.util.List;

/**
 * The latest feature values per entity of a feature table, held in an embedded key-value store
 * (SQLite) on local disk for sub-millisecond reads, and kept fresh from the table.
 *
 * <pre>{@code
 * OnlineView view = store.onlineView(OnlineViewDefinition.builder("users", TableId.of("features", "events"))
 *     .key("entity_id").eventTime("event_time").features("feature_a", "feature_b")
 *     .ttl(Duration.ofDays(2)).build());
 * view.materialize();                                  // incremental from the last snapshot, or a rebuild
 * OnlineRow row = view.get(42L);                       // FOUND, MISSING or EXPIRED
 * OnlineBatch batch = view.get(List.of(1L, 2L, 3L), List.of("feature_a"));
 * view.lag();                                          // the snapshot it reflects and how old
 * }</pre>
 *
 * <p>Consistency: the view reflects exactly one source snapshot at a time. A materialization is
 * one transaction: a reader sees the view before or after it, never between; a process killed
 * during one leaves the view at its old snapshot. An incremental materialization gives the view
 * a rebuild from scratch would give.
 *
 * <p>Thread safety: safe for concurrent use; reads run in parallel (up to
 * {@link OnlineViewDefinition#readConnections()}) and while a materialization runs;
 * materializations run one at a time. The store closes its views when it closes.
 */
public interface OnlineView extends AutoCloseable {
  OnlineViewDefinition definition();

  /** The features served, by their current names (a renamed column shows its new name after the next materialization). */
  List<String> features();

  /**
   * The latest values of every feature for {@code key}.
   *
   * @throws InvalidArgumentException if the key is null or does not convert to the key column's type
   */
  OnlineRow get(Object key);

  /**
   * The latest values of {@code features} for each of {@code keys}, read from one state of the view.
   *
   * @throws InvalidArgumentException if a key does not convert, or a feature is not in the view
   */
  OnlineBatch get(Collection<?> keys, Collection<String> features);

  /**
   * Brings the view to the table's current snapshot: incrementally from the snapshot it reflects
   * when only appends, row-level deletes and file rewrites happened since on the same branch, by a
   * full rebuild otherwise (rollback, expired history, a changed definition or dropped column).
   * Returns at once with mode {@code UP_TO_DATE} when nothing changed.
   *
   * @throws InvalidStateException if the key or event-time column is gone from the table
   * @throws StorageException if the view's file or the table's files cannot be read or written
   */
  OnlineMaterialization materialize();

  /** Rebuilds the view from scratch at the table's current snapshot. */
  OnlineMaterialization rebuild();

  /**
   * Asks for a materialization on the view's own thread and returns at once; requests that come
   * while one is pending are merged. For a {@code CdcPipeline}'s after-commit hook.
   */
  void requestMaterialize();

  /** The snapshot the view reflects, its age, and how far behind the table it is (refreshes the table). */
  OnlineLag lag();

  /** Read and materialization counters, and the lag. */
  OnlineViewMetrics metrics();

  /** Closes the view's connections and its thread; safe to call twice. */
  @Override
  void close();
}
