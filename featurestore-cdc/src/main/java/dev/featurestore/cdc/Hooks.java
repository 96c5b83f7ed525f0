package dev.featurestore.cdc;

/**
 * Test seam: called at named points of the pipeline (for example {@code commit.after}), so a
 * crash test can pause or kill the process exactly there. The default does nothing.
 */
@FunctionalInterface
interface Hooks {
  Hooks NONE = point -> { };

  void at(String point);
}
