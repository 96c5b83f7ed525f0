package dev.featurestore.core.bloom;

import dev.featurestore.InvalidArgumentException;

import dev.featurestore.BloomFilterColumn;
import dev.featurestore.BloomFilterUpdate;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.core.base.TableHandle;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateProperties;
import org.apache.iceberg.types.Types;

/** Sets or removes the Iceberg bloom-filter properties of columns, in one property commit. */
final class BloomColumnsChange implements BloomFilterUpdate {
  private final TableHandle handle;
  private final Map<String, String> set = new LinkedHashMap<>();
  private final Map<String, Boolean> removed = new LinkedHashMap<>();
  private boolean committed;

  BloomColumnsChange(TableHandle handle) {
    this.handle = handle;
  }

  @Override
  public BloomFilterUpdate enable(String column, long ndv) {
    return enable(column, ndv, BloomFilterColumn.DEFAULT_FPP);
  }

  @Override
  public BloomFilterUpdate enable(String column, long ndv, double fpp) {
    checkNotCommitted();
    InvalidArgumentException.requireNonNull(column, "enable bloom filter", "column");
    BloomFilterColumn.check(handle.table().schema(), column, ndv, fpp);
    removed.remove(column);
    set.put(BloomFilterColumn.ENABLED_PREFIX + column, "true");
    set.put(BloomFilterColumn.NDV_PREFIX + column, Long.toString(ndv));
    set.put(BloomFilterColumn.FPP_PREFIX + column, Double.toString(fpp));
    return this;
  }

  @Override
  public BloomFilterUpdate disable(String column) {
    checkNotCommitted();
    InvalidArgumentException.requireNonNull(column, "disable bloom filter", "column");
    // a column dropped from the schema may still carry bloom properties: disabling them is a clean-up
    InvalidArgumentException.check(handle.table().schema().findField(column) != null
            || handle.table().properties().containsKey(BloomFilterColumn.ENABLED_PREFIX + column)
            || set.containsKey(BloomFilterColumn.ENABLED_PREFIX + column),
        "Cannot disable bloom filter of table %s: unknown column: %s", handle.id(), column);
    set.remove(BloomFilterColumn.ENABLED_PREFIX + column);
    set.remove(BloomFilterColumn.NDV_PREFIX + column);
    set.remove(BloomFilterColumn.FPP_PREFIX + column);
    removed.put(column, true);
    return this;
  }

  @Override
  public Map<String, BloomFilterColumn> apply() {
    checkNotCommitted();
    Table table = handle.translating("refresh table " + handle.id(), handle::refreshed);
    return BloomFilterColumn.fromProperties(applied(table.properties()));
  }

  @Override
  public Map<String, BloomFilterColumn> commit() {
    checkNotCommitted();
    committed = true;
    return handle.commitLocked(() -> {
      Table table = handle.table();
      UpdateProperties update = table.updateProperties();
      set.forEach(update::set);
      for (String column : removed.keySet()) {
        for (String prefix : new String[] {
            BloomFilterColumn.ENABLED_PREFIX, BloomFilterColumn.NDV_PREFIX, BloomFilterColumn.FPP_PREFIX}) {
          if (table.properties().containsKey(prefix + column)) {
            update.remove(prefix + column);
          }
        }
      }
      update.commit();
      table.refresh();
      Map<String, BloomFilterColumn> columns = BloomFilterColumn.fromProperties(table.properties());
      handle.record("bloom_filter_change", null, Map.of("columns", List.copyOf(columns.keySet()),
          "removed", List.copyOf(removed.keySet())));
      return columns;
    });
  }

  private Map<String, String> applied(Map<String, String> current) {
    Map<String, String> props = new HashMap<>(current);
    for (String column : removed.keySet()) {
      props.remove(BloomFilterColumn.ENABLED_PREFIX + column);
      props.remove(BloomFilterColumn.NDV_PREFIX + column);
      props.remove(BloomFilterColumn.FPP_PREFIX + column);
    }
    props.putAll(set);
    return props;
  }

  private void checkNotCommitted() {
    if (committed) {
      throw new InvalidStateException("Cannot commit bloom filter update of table " + handle.id() + ": already committed");
    }
  }
}
