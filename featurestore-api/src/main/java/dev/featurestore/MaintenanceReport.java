package dev.featurestore;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What a {@link MaintenancePlan} run did; a result is present for each step that ran.
 *
 * @param steps the steps that ran, in order
 * @param compaction the compaction's result
 * @param manifests the manifest rewrite's result
 * @param expiry the expiry's result
 * @param orphans the orphan removal's result
 * @param elapsed wall time of the run
 */
public record MaintenanceReport(
    List<MaintenanceStep> steps,
    Optional<CompactionResult> compaction,
    Optional<RewriteManifestsResult> manifests,
    Optional<ExpireResult> expiry,
    Optional<OrphanFilesResult> orphans,
    Duration elapsed) {
  public MaintenanceReport {
    steps = List.copyOf(steps);
  }
}
