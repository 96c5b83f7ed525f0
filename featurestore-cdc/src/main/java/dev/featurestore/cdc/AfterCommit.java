package dev.featurestore.cdc;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An action a pipeline runs after each of its commits has landed ({@code commit.after}), on the
 * committing thread: for example {@code OnlineView::requestMaterialize} of a view over a target
 * table, so the view follows the stream. A failing action is logged; it never fails the commit,
 * which has already landed. Set the test seam {@code hooks(...)} before adding actions.
 */
final class AfterCommit implements Hooks {
  private static final Logger LOG = LoggerFactory.getLogger(AfterCommit.class);
  private final Hooks inner;
  private final Runnable action;

  private AfterCommit(Hooks inner, Runnable action) {
    this.inner = inner;
    this.action = action;
  }

  static Hooks around(Hooks inner, Runnable action) {
    return new AfterCommit(inner, action);
  }

  @Override
  public void at(String point) {
    inner.at(point);
    if (point.equals("commit.after")) {
      try {
        action.run();
      } catch (RuntimeException e) {
        LOG.warn("CDC after-commit action failed: {}", e.toString());
      }
    }
  }
}
