package dev.featurestore.cdc;

import dev.featurestore.FeatureStore;
import dev.featurestore.TableId;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The immutable settings of one pipeline, built and checked by {@link CdcPipeline.Builder#build()};
 * the pipeline and its parts read only this, never the mutable builder.
 */
record CdcSettings(
    FeatureStore store, TableId changeLog, TableId currentState, String shard, int batchSize, Duration flushInterval,
    CdcCompression compression, Path walDirectory, FsyncPolicy fsync, int commitRetries, Duration retryBackoff,
    Backpressure backpressure, long maxPending, boolean evolveSchema, int buckets, WalRecovery walRecovery,
    int maxTypedColumns, Duration leaseDuration, Hooks hooks) {}
