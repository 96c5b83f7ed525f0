package dev.featurestore;

/**
 * One step of a {@link MaintenancePlan}.
 *
 * @param task what runs
 * @param reason why, with the measured value and its threshold
 */
public record MaintenanceStep(MaintenanceTask task, String reason) {}
