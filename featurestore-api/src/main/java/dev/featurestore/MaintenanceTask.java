package dev.featurestore;

/** The operations a {@link MaintenancePlan} may run, in the order it runs them. */
public enum MaintenanceTask {
  COMPACT,
  REWRITE_MANIFESTS,
  EXPIRE_SNAPSHOTS,
  REMOVE_ORPHAN_FILES
}
