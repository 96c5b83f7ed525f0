package dev.featurestore;

import java.util.List;
import java.util.Optional;

/**
 * The Parquet bloom filters stored in one data file, per column and row group, read from the file's
 * footer without reading its rows; made by {@link FeatureTable#readBloomFilters(String)}.
 *
 * <pre>{@code
 * DataFileBloomFilters blooms = table.readBloomFilters(report.kept().get(0).location());
 * blooms.columns();                              // [entity_id]
 * blooms.rowGroupsMightContain("entity_id", 42L); // [0, 3]: the row groups a read of key 42 opens
 * blooms.mightContain("entity_id", 7L);           // false: no row group can hold 7
 * }</pre>
 *
 * <p>Columns are matched to the table's current schema by field id, so a renamed column answers to
 * its new name; a column the table dropped is not listed. Keys convert as in a filter ({@code
 * Expressions.equal(column, key)}): an int key widens for a long column, an ISO string for a
 * timestamp. As Parquet's row-group filter does, a row group without a filter, or a column whose
 * encoding is not hashed here (decimal, binary, fixed, boolean), is never ruled out. Immutable and
 * thread-safe.
 */
public interface DataFileBloomFilters {
  /** The data file. */
  String location();

  /** The number of row groups in the file. */
  int rowGroupCount();

  /** The columns (current names, in schema order) with a bloom filter in at least one row group. */
  List<String> columns();

  /**
   * The filter of {@code column} in each row group, in row-group order; empty for a row group
   * without one (every entry is empty for a column without filters).
   *
   * @throws NotFoundException if the table has no such column or the file does not hold it
   */
  List<Optional<BloomFilter>> filters(String column);

  /**
   * The row groups (0-based, ascending) whose filter of {@code column} might contain {@code key},
   * or that have no filter: the row groups a point read of the key must open.
   *
   * @throws NotFoundException if the table has no such column or the file does not hold it
   * @throws InvalidArgumentException if the key does not convert to the column's type
   */
  List<Integer> rowGroupsMightContain(String column, Object key);

  /** False only if every row group's filter rules {@code key} out. */
  default boolean mightContain(String column, Object key) {
    return !rowGroupsMightContain(column, key).isEmpty();
  }
}
