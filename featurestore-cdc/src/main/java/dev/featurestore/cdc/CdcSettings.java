package dev.featurestore.cdc;

import dev.featurestore.FeatureStore;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.MaintenancePolicy;
import dev.featurestore.TableId;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * The immutable settings of one pipeline ({@code tablesLocation}: the absolute base of the tables it
 * creates, or null for the store's warehouse; {@code maintenance}: the background maintenance policy
 * of the target tables, null for none; {@code maintenanceExplicit}: set by the caller rather than the
 * default), built and checked by {@link CdcPipeline.Builder#build()};
 * the pipeline and its parts read only this, never the mutable builder.
 */
record CdcSettings(
    FeatureStore store, TableId changeLog, TableId currentState, String shard, int batchSize, Duration flushInterval,
    CdcCompression compression, Path walDirectory, FsyncPolicy fsync, int commitRetries, Duration retryBackoff,
    Backpressure backpressure, long maxPending, boolean evolveSchema, int buckets, CurrentStateLayout layout,
    WalRecovery walRecovery, int maxTypedColumns, Duration leaseDuration, Clock leaseClock, MaintenancePolicy maintenance,
    boolean maintenanceExplicit, Hooks hooks, String tablesLocation) {

  /** Checks the combination (each setting alone is checked where the builder sets it). */
  CdcSettings {
    if (changeLog == null && currentState == null) {
      throw new InvalidArgumentException("Cannot build CDC pipeline: no target table: set changeLog or currentState");
    }
    if (changeLog != null && changeLog.equals(currentState)) {
      throw new InvalidArgumentException("Cannot build CDC pipeline: change log and current state need two tables: " + changeLog);
    }
    if (walDirectory == null) {
      throw new InvalidArgumentException("Cannot build CDC pipeline: no write-ahead log directory");
    }
    if (maxPending < batchSize) {
      throw new InvalidArgumentException("Cannot build CDC pipeline: pending bound below the batch size: "
          + maxPending + " < " + batchSize);
    }
  }

  /** The modes the settings name. */
  Set<CdcMode> modes() {
    EnumSet<CdcMode> modes = EnumSet.noneOf(CdcMode.class);
    if (changeLog != null) {
      modes.add(CdcMode.CHANGE_LOG);
    }
    if (currentState != null) {
      modes.add(CdcMode.CURRENT_STATE);
    }
    return modes;
  }
}
