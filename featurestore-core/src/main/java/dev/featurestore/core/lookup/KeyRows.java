package dev.featurestore.core.lookup;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.core.base.RowMatches;
import dev.featurestore.core.base.TableHandle;
import dev.featurestore.core.base.UuidBounds;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.types.Types;

/**
 * Entry point of deletes by key: the rows of a snapshot whose key column equals one of a set of
 * keys, found with the planning of point lookups ({@link KeyCandidates}: partitions, column
 * statistics, row-group statistics and the key's bloom filters), so forgetting one entity of a big
 * table reads only the files that may hold it. Rows are checked as lookups check them (a key
 * equals a value; null equals nothing; a NaN key is refused).
 *
 * <pre>{@code
 * KeyRows.checkColumn(handle, "entity_id");
 * RowMatches.Found found = KeyRows.find(handle, table, table.currentSnapshot(), "entity_id", List.of(42L), true);
 * }</pre>
 *
 * Thread-safe (no state).
 */
public final class KeyRows {
  private KeyRows() {}

  /**
   * Checks that {@code column} can key a delete.
   *
   * @throws InvalidArgumentException if it does not exist or is not primitive
   */
  public static void checkColumn(TableHandle handle, String column) {
    Types.NestedField field = handle.table().schema().findField(column);
    InvalidArgumentException.check(field != null, "Cannot delete rows of table %s: unknown key column: %s",
        handle.id(), column);
    InvalidArgumentException.check(field.type().isPrimitiveType(),
        "Cannot delete rows of table %s: key column is not primitive: %s", handle.id(), column);
  }

  /** Checks the keys themselves: none null, none NaN (NaN equals no key, IEEE 754). */
  public static void checkKeys(TableHandle handle, String column, List<?> keys) {
    InvalidArgumentException.check(!keys.isEmpty(), "Cannot delete rows of table %s: no key given: %s", handle.id(), keys);
    for (Object key : keys) {
      InvalidArgumentException.requireNonNull(key, "delete rows of table " + handle.id(), "key");
      InvalidArgumentException.check(!(key instanceof Double d && d.isNaN()) && !(key instanceof Float f && f.isNaN()),
          "Cannot delete rows of table %s: NaN equals no key (IEEE 754); delete NaN rows with "
              + "where(Expressions.isNaN(\"%s\")): %s", handle.id(), column, key);
    }
  }

  /**
   * The rows of {@code snapshot} keyed by one of {@code keys}, read with the table's current schema.
   *
   * @param applyDeletes false to match what the files hold, rows already deleted included
   * @throws InvalidArgumentException if the column is unknown or a key does not fit its type
   */
  public static RowMatches.Found find(TableHandle handle, Table table, Snapshot snapshot, String column, List<?> keys,
      boolean applyDeletes) {
    checkColumn(handle, column);
    checkKeys(handle, column, keys);
    Schema schema = table.schema();
    Types.NestedField field = schema.findField(column);
    List<Object> internalKeys = KeyCandidates.internalKeys(schema, column, keys, "delete rows of table " + handle.id());
    checkKeys(handle, column, internalKeys); // NaN written as text converts to NaN
    Expression filter = KeyCandidates.keyFilter(column, internalKeys);
    Expression pruning = UuidBounds.pruningFilter(filter, schema, true);
    FooterCache cache = new FooterCache(column, Lookups.DEFAULT_CACHED_FILES);
    List<FileScanTask> candidates = KeyCandidates.byStatistics(schema, filter, pruning,
        cache.files(table, snapshot.snapshotId()));
    KeyCandidates.RowGroups rowGroups = new KeyCandidates.RowGroups(schema, pruning, field.type(), internalKeys);
    Schema needed = schema.select(column);
    List<RowMatches.FileMatch> files = new ArrayList<>();
    long scanned = 0;
    for (FileScanTask task : candidates) {
      if (rowGroups.mayHold(cache.footer(table, task.file())).length == 0) {
        continue;
      }
      scanned++;
      RowMatches.FileMatch match = RowMatches.scan(table, schema, task, needed, struct -> {
        Evaluator evaluator = new Evaluator(struct, filter, true);
        return evaluator::eval;
      }, applyDeletes);
      if (match != null) {
        files.add(match);
      }
    }
    return new RowMatches.Found(files, scanned);
  }
}
