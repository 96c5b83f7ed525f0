package dev.featurestore.core.tiering;

import static java.util.Objects.requireNonNull;

import dev.featurestore.Tiering;
import dev.featurestore.core.base.TableHandle;

/**
 * Entry point of hot/cold tiering: {@link #of(TableHandle)} starts a tiering run of a table. The
 * store's FileIO must be a {@link dev.featurestore.core.storage.TieredFileIO} (a store built with
 * {@code coldStorage(...)}); that is checked when the run starts.
 */
public final class Tierings {
  private Tierings() {}

  /** A new, single-use tiering run of the table. */
  public static Tiering of(TableHandle handle) {
    return new TieringOperation(requireNonNull(handle, "handle is null"));
  }
}
