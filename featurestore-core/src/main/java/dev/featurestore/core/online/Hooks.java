package dev.featurestore.core.online;

/** Test seam: called at named points of a materialization, so a crash test can kill the process there. */
@FunctionalInterface
interface Hooks {
  Hooks NONE = point -> { };

  void at(String point);
}
