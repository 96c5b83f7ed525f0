package dev.featurestore;

import java.util.List;

/**
 * What a {@link MaintenancePolicy} decided for one table, from its state when the plan was made.
 *
 * <pre>{@code
 * MaintenancePlan plan = table.maintenance().plan(MaintenancePolicy.defaults());
 * plan.steps().forEach(s -> log.info("{}: {}", s.task(), s.reason()));
 * MaintenanceReport report = plan.run(p -> log.info("{} {}", p.task(), p.status()));
 * }</pre>
 */
public interface MaintenancePlan {
  /** The steps that would run, in the order they would run, each with the reason. */
  List<MaintenanceStep> steps();

  /** Whether the plan has nothing to do. */
  default boolean isEmpty() {
    return steps().isEmpty();
  }

  /**
   * Runs the steps in a safe order (compaction, manifest rewrite, snapshot expiry, orphan removal
   * last), reporting each start and finish to {@code listener} on the calling thread. Stops at the
   * first failure, which is thrown after the listener has seen it. Single-use.
   */
  MaintenanceReport run(MaintenanceListener listener);

  /** Runs without progress reporting. */
  default MaintenanceReport run() {
    return run(progress -> {});
  }
}
