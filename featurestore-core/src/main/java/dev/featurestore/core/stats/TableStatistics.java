package dev.featurestore.core.stats;

import dev.featurestore.TableStats;
import dev.featurestore.core.TableHandle;

/** STUB: to be implemented. */
public final class TableStatistics {
  private TableStatistics() {}

  public static TableStats compute(TableHandle handle) {
    throw new UnsupportedOperationException(handle.id().toString());
  }
}
