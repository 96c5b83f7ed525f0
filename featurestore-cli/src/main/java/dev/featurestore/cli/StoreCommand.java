package dev.featurestore.cli;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** A command that opens the store, does one thing and closes it. */
abstract class StoreCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  FeatureStoreCli cli() {
    return (FeatureStoreCli) spec.root().userObject();
  }

  GlobalOptions global() {
    return cli().global();
  }

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  Progress progress(String task) {
    return Progress.start(cli().stderr(), global().progress, task);
  }

  @Override
  public Integer call() throws Exception {
    try (FeatureStore store = global().open()) {
      return run(store);
    }
  }

  abstract int run(FeatureStore store) throws Exception;

  /** A command on one table, named by its first parameter. */
  abstract static class OnTable extends StoreCommand {
    @picocli.CommandLine.Parameters(index = "0", paramLabel = "TABLE", description = "The table: namespace.name")
    String table;

    @Override
    int run(FeatureStore store) throws Exception {
      return run(store, store.table(table));
    }

    abstract int run(FeatureStore store, FeatureTable table) throws Exception;
  }
}
