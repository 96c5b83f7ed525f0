package dev.featurestore.cdc;

import dev.featurestore.BackgroundMaintenance;
import dev.featurestore.BackgroundMaintenanceStatus;
import dev.featurestore.MaintenancePolicy;
import dev.featurestore.TableId;
import dev.featurestore.core.base.CatalogLease;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The background maintenance of a pipeline's target tables (the store's
 * {@link dev.featurestore.TableMaintenance#background}, one per table): started when the pipeline
 * opens, closed when it closes. Several shards' pipelines on one table each start one; the
 * table's maintenance lease lets one of them work at a time.
 */
final class StreamMaintenance implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StreamMaintenance.class);
  static final StreamMaintenance NONE = new StreamMaintenance(List.of());

  private final List<BackgroundMaintenance> running;

  private StreamMaintenance(List<BackgroundMaintenance> running) {
    this.running = running;
  }

  /**
   * Starts the settings' policy on every target table. With the default policy (not set
   * explicitly) on a catalog without a lease database (REST, caller-supplied), nothing starts:
   * every pipeline would maintain the table at once; set one explicitly to maintain anyway.
   */
  static StreamMaintenance start(CdcSettings s) {
    MaintenancePolicy policy = s.maintenance();
    if (policy == null) {
      return NONE;
    }
    if (!s.maintenanceExplicit() && CatalogLease.forStore(s.store().config(), s.store().config().clock()).isEmpty()) {
      LOG.info("CDC shard {}: no background maintenance (the catalog has no database for its lease); set"
          + " maintenance(policy) to maintain the tables from this pipeline", s.shard());
      return NONE;
    }
    List<BackgroundMaintenance> running = new ArrayList<>();
    try {
      for (TableId table : new TableId[] {s.changeLog(), s.currentState()}) {
        if (table != null) {
          running.add(s.store().table(table).maintenance().background(policy));
        }
      }
    } catch (RuntimeException e) {
      new StreamMaintenance(running).close();
      throw e;
    }
    return new StreamMaintenance(List.copyOf(running));
  }

  List<BackgroundMaintenanceStatus> statuses() {
    return running.stream().map(BackgroundMaintenance::status).toList();
  }

  /** Stops every table's maintenance, waiting for running steps. */
  @Override
  public void close() {
    for (int i = running.size() - 1; i >= 0; i--) {
      try {
        running.get(i).close();
      } catch (RuntimeException e) {
        LOG.warn("Cannot stop background maintenance {}: {}", running.get(i), e.toString());
      }
    }
  }
}
