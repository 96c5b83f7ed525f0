package dev.featurestore;

/** Receives the progress of a {@link Tiering} run, one report per committed batch. */
@FunctionalInterface
public interface TieringListener {
  void onBatch(TieringProgress progress);
}
