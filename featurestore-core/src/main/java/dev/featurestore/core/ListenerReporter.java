package dev.featurestore.core;

import static java.util.Objects.requireNonNull;

import dev.featurestore.CommitMetrics;
import dev.featurestore.MetricsListener;
import dev.featurestore.ScanMetrics;
import dev.featurestore.TableId;
import java.time.Duration;
import org.apache.iceberg.metrics.CommitMetricsResult;
import org.apache.iceberg.metrics.CommitReport;
import org.apache.iceberg.metrics.CounterResult;
import org.apache.iceberg.metrics.MetricsReport;
import org.apache.iceberg.metrics.MetricsReporter;
import org.apache.iceberg.metrics.ScanMetricsResult;
import org.apache.iceberg.metrics.ScanReport;
import org.apache.iceberg.metrics.TimerResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An Iceberg {@link MetricsReporter} for one table that translates Iceberg's scan and commit
 * reports into the library's records and hands them to a {@link MetricsListener}. Also logs each
 * report at DEBUG, so {@code dev.featurestore.core.metrics=debug} shows every scan and commit.
 */
final class ListenerReporter implements MetricsReporter {
  private static final Logger LOG = LoggerFactory.getLogger(ListenerReporter.class);

  private final TableId table;
  private final MetricsListener listener;

  public ListenerReporter(TableId table, MetricsListener listener) {
    this.table = requireNonNull(table, "table is null");
    this.listener = listener;
  }

  /** A reporter that only logs (no listener set). */
  public static ListenerReporter loggingOnly(TableId table) {
    return new ListenerReporter(table, null);
  }

  @Override
  public void report(MetricsReport report) {
    try {
      if (report instanceof ScanReport scan) {
        ScanMetrics metrics = scan(scan);
        LOG.debug("Scan of {}: {}", table, metrics);
        if (listener != null) {
          listener.onScan(metrics);
        }
      } else if (report instanceof CommitReport commit) {
        CommitMetrics metrics = commit(commit);
        LOG.debug("Commit to {}: {}", table, metrics);
        if (listener != null) {
          listener.onCommit(metrics);
        }
      }
    } catch (RuntimeException e) {
      // a metrics listener must never fail a scan or a commit
      LOG.warn("Cannot report metrics of table {}: listener failed: {}", table, e.toString(), e);
    }
  }

  ScanMetrics scan(ScanReport report) {
    ScanMetricsResult m = report.scanMetrics();
    return new ScanMetrics(
        table,
        report.snapshotId(),
        String.valueOf(report.filter()),
        report.projectedFieldNames(),
        duration(m.totalPlanningDuration()),
        value(m.resultDataFiles()),
        value(m.resultDeleteFiles()),
        value(m.skippedDataFiles()),
        value(m.scannedDataManifests()),
        value(m.skippedDataManifests()),
        value(m.totalFileSizeInBytes()));
  }

  CommitMetrics commit(CommitReport report) {
    CommitMetricsResult m = report.commitMetrics();
    return new CommitMetrics(
        table,
        report.snapshotId(),
        report.sequenceNumber(),
        report.operation(),
        duration(m.totalDuration()),
        value(m.attempts()),
        value(m.addedDataFiles()),
        value(m.removedDataFiles()),
        value(m.totalDataFiles()),
        value(m.addedRecords()),
        value(m.removedRecords()),
        value(m.totalRecords()),
        value(m.addedFilesSizeInBytes()));
  }

  private static long value(CounterResult counter) {
    return counter == null ? 0 : counter.value();
  }

  private static Duration duration(TimerResult timer) {
    return timer == null ? Duration.ZERO : timer.totalDuration();
  }
}
