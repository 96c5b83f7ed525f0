package dev.featurestore.cdc;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A point-in-time snapshot of a pipeline's counters.
 *
 * @param accepted entries accepted (in the write-ahead log) by this pipeline since it opened,
 *     not counting entries recovered from the log
 * @param recovered entries found in the write-ahead log on open, above the tables' high-water marks
 * @param flushed entries committed since open (recovered ones included)
 * @param pending entries accepted or recovered but not yet committed
 * @param commits successful commits since open (one per table per batch)
 * @param lastCommitLatency wall time of the last successful commit (file writes included)
 * @param maxCommitLatency the longest commit since open
 * @param lastCommittedSequence the highest sequence id committed to every target table
 * @param lastEventToVisibleLag for the last batch: time from accepting its oldest entry to its commit
 * @param deadLetters entries rejected from the current-state table since open
 * @param lastError the last flush failure, cleared by the next successful flush
 */
public record CdcMetrics(
    long accepted, long recovered, long flushed, long pending, long commits, Duration lastCommitLatency,
    Duration maxCommitLatency, OptionalLong lastCommittedSequence, Duration lastEventToVisibleLag,
    long deadLetters, Optional<String> lastError) {}
