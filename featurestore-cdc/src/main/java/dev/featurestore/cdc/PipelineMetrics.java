package dev.featurestore.cdc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

/** The pipeline's counters, updated by its parts and read as one {@link CdcMetrics} snapshot. */
final class PipelineMetrics {
  final AtomicLong accepted = new AtomicLong();
  final AtomicLong flushed = new AtomicLong();
  final AtomicLong commits = new AtomicLong();
  final AtomicLong skippedWalRecords = new AtomicLong();
  final AtomicLong redelivered = new AtomicLong();
  private volatile long recovered;
  private volatile Duration lastCommitLatency = Duration.ZERO;
  private volatile Duration maxCommitLatency = Duration.ZERO;
  private volatile Duration lastLag = Duration.ZERO;
  private volatile String lastError;
  private final List<DeadLetter> deadLetters = Collections.synchronizedList(new ArrayList<>());

  void recovered(long entries) {
    this.recovered = entries;
  }

  long recovered() {
    return recovered;
  }

  void commitTook(long startNanos) {
    Duration d = Duration.ofNanos(System.nanoTime() - startNanos);
    lastCommitLatency = d;
    if (d.compareTo(maxCommitLatency) > 0) {
      maxCommitLatency = d;
    }
    commits.incrementAndGet();
  }

  void batchCommitted(int entries, long oldestAcceptedMillis) {
    lastLag = Duration.ofMillis(Math.max(0, System.currentTimeMillis() - oldestAcceptedMillis));
    flushed.addAndGet(entries);
    lastError = null;
  }

  void error(String message) {
    lastError = message;
  }

  String lastError() {
    return lastError;
  }

  void deadLettered(List<DeadLetter> letters) {
    deadLetters.addAll(letters);
  }

  List<DeadLetter> deadLetters() {
    synchronized (deadLetters) {
      return List.copyOf(deadLetters);
    }
  }

  CdcMetrics snapshot(long pending, long minCommitted) {
    return new CdcMetrics(accepted.get(), recovered, flushed.get(), pending, commits.get(), lastCommitLatency,
        maxCommitLatency, minCommitted == 0 || minCommitted == Long.MAX_VALUE ? OptionalLong.empty()
        : OptionalLong.of(minCommitted), lastLag, deadLetters.size(), Optional.ofNullable(lastError));
  }
}
