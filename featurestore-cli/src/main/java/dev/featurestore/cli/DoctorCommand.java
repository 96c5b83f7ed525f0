package dev.featurestore.cli;

import dev.featurestore.DoctorReport;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.ValidationException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code doctor}: checks the settings, the bucket (credentials, region, read/write/list/delete on
 * a probe key) and the catalog, and names what to change. Exits 1 when a check fails.
 */
@Command(name = "doctor", description = "Checks the store's settings, bucket and catalog, and names what to change.")
final class DoctorCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin Output output;

  @Override
  public Integer call() {
    GlobalOptions global = ((FeatureStoreCli) spec.root().userObject()).global();
    DoctorReport report;
    try {
      report = FeatureStore.doctor(global.config());
    } catch (ValidationException e) {
      if (!global.b2) {
        throw e;
      }
      // the environment is incomplete: the doctor names each missing or placeholder variable
      FeatureStoreConfig partial = global.config(false);
      report = FeatureStore.doctorFromEnvironment(partial.root().orElse(Path.of(".")), global.env());
    }
    List<Map<String, Object>> rows = report.checks().stream()
        .map(c -> Values.row("status", c.status(), "check", c.name(), "detail", c.detail(), "fix", c.fix()))
        .toList();
    output.rows(spec.commandLine().getOut(), rows);
    return report.ok() ? ExitCodes.OK : ExitCodes.FAILED;
  }
}
