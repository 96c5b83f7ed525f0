package dev.featurestore.core.lookup;


import dev.featurestore.InvalidArgumentException;
import dev.featurestore.PointLookup;
import dev.featurestore.core.base.TableHandle;
import org.apache.iceberg.types.Types;

/**
 * Entry point of point lookups: {@link #of(TableHandle, String)} returns a lookup by a key column
 * with its own cache of data-file footers and bloom filters (shared by every refinement of it).
 *
 * <pre>{@code
 * PointLookup byEntity = Lookups.of(handle, "entity_id").latestBy("event_time");
 * LookupResult hit = byEntity.get(42L);
 * }</pre>
 *
 * <p>Keep and reuse one lookup to serve many keys: the cache is what makes repeated lookups fast.
 */
public final class Lookups {
  /** Footers (with the key column's bloom filters) kept per lookup; about 100 KB to a few MB per 1,000 files. */
  static final int DEFAULT_CACHED_FILES = 4_096;

  private Lookups() {}

  /**
   * A lookup of the latest row by {@code keyColumn}.
   *
   * @throws dev.featurestore.InvalidArgumentException if the column does not exist or is not primitive
   */
  public static PointLookup of(TableHandle handle, String keyColumn) {
    InvalidArgumentException.requireNonNull(handle, "look up rows", "handle");
    InvalidArgumentException.requireNonNull(keyColumn, "look up rows", "keyColumn");
    Types.NestedField field = handle.table().schema().findField(keyColumn);
    if (field == null) {
      throw new InvalidArgumentException("Cannot look up rows: unknown key column: " + keyColumn);
    }
    if (!field.type().isPrimitiveType()) {
      throw new InvalidArgumentException("Cannot look up rows: key column is not primitive: " + keyColumn);
    }
    return new KeyLookup(handle, keyColumn, new FooterCache(keyColumn, DEFAULT_CACHED_FILES));
  }
}
