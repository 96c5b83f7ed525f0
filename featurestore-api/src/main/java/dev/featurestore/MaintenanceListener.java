package dev.featurestore;

/** Receives the progress of a running {@link MaintenancePlan}, on the thread that runs it. */
@FunctionalInterface
public interface MaintenanceListener {
  void onProgress(MaintenanceProgress progress);
}
