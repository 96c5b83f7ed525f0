package dev.featurestore.core.query;

import dev.featurestore.TimeTravelQuery;
import dev.featurestore.core.TableHandle;

/** STUB: to be implemented. */
public final class TableQuery {
  private TableQuery() {}

  public static TimeTravelQuery of(TableHandle handle) {
    throw new UnsupportedOperationException(handle.id().toString());
  }
}
