package dev.featurestore;

/**
 * The progress of a running {@link MaintenancePlan}.
 *
 * @param task the step
 * @param step its position, from 1
 * @param steps number of steps in the plan
 * @param status whether it started, finished or failed
 * @param message what it did (or why it failed), empty when it starts
 */
public record MaintenanceProgress(MaintenanceTask task, int step, int steps, Status status, String message) {
  public enum Status {
    STARTED,
    FINISHED,
    FAILED
  }
}
