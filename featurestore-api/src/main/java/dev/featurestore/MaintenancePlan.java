package dev.featurestore;

import java.util.List;

/**
 * What a {@link MaintenancePolicy} decided for one table, from its state when the plan was made.
 * An action, like the steps it runs: {@link #steps()} is the preview, {@link #execute()} acts.
 *
 * <pre>{@code
 * MaintenancePlan plan = table.maintenance().plan(MaintenancePolicy.defaults());
 * plan.steps().forEach(s -> log.info("{}: {}", s.task(), s.reason()));
 * MaintenanceReport report = plan.listener(p -> log.info("{} {}", p.task(), p.status())).execute();
 * }</pre>
 */
public interface MaintenancePlan {
  /** The steps that would run, in the order they would run, each with the reason. */
  List<MaintenanceStep> steps();

  /** Whether the plan has nothing to do. */
  default boolean isEmpty() {
    return steps().isEmpty();
  }

  /** Receives each step's start and finish (or failure), on the thread that calls {@link #execute()}. */
  MaintenancePlan listener(MaintenanceListener listener);

  /**
   * Runs the steps in a safe order (compaction, manifest rewrite, snapshot expiry, orphan removal
   * last), reporting each start and finish to the {@link #listener(MaintenanceListener) listener}.
   * Stops at the first failure, which is thrown after the listener has seen it.
   *
   * <p>The compaction step rewrites the files of the snapshot the plan saw (with the library's own
   * compaction, the plan's planning of the files is the compaction's: the table is planned once),
   * committed against that snapshot: commits made since are handled as commits made during the
   * compaction (appends kept, position deletes of single files carried over to the new files,
   * anything else a {@link CommitConflictException} with the table unchanged). If that snapshot is
   * no longer in the table's current history (rolled back, expired), the compaction plans again.
   *
   * @throws InvalidStateException if this plan was already executed ({@code Cannot execute
   *     maintenance plan of table <id>: already executed})
   */
  MaintenanceReport execute();

  /**
   * Runs the steps, reporting to {@code listener}.
   *
   * @deprecated use {@code listener(listener).execute()}; {@code run(listener)} stays for one release.
   */
  @Deprecated(forRemoval = false)
  default MaintenanceReport run(MaintenanceListener listener) {
    return listener(listener).execute();
  }

  /**
   * Runs the steps without progress reporting.
   *
   * @deprecated use {@link #execute()}; {@code run()} stays for one release.
   */
  @Deprecated(forRemoval = false)
  default MaintenanceReport run() {
    return execute();
  }
}
