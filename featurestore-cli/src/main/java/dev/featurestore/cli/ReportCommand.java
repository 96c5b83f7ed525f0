package dev.featurestore.cli;

import dev.featurestore.FeatureStore;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.core.dashboard.DashboardReport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code report}: the dashboard report (one self-contained HTML page) of a table, or of the store. */
@Command(name = "report", description = "Writes the HTML dashboard of a table (or of every table: --all) to stdout or --out.")
final class ReportCommand extends StoreCommand {
  @Parameters(index = "0", arity = "0..1", paramLabel = "TABLE", description = "The table: namespace.name")
  String table;

  @Option(names = "--all", description = "Every table of the store.")
  boolean all;

  @Option(names = "--out", paramLabel = "FILE", description = "Write to this file (never replaced) instead of stdout.")
  Path file;

  @Override
  int run(FeatureStore store) throws Exception {
    InvalidArgumentException.check(all != (table != null), "Cannot write report: name a table or pass --all, not both: %s",
        table == null ? "(none)" : table);
    String html = (all ? DashboardReport.forStore(store) : DashboardReport.forTable(store.table(table))).render();
    byte[] bytes = html.getBytes(StandardCharsets.UTF_8);
    if (file != null) {
      Files.write(file, bytes, StandardOpenOption.CREATE_NEW);
    } else {
      cli().stdout().write(bytes);
      cli().stdout().flush();
    }
    return ExitCodes.OK;
  }
}
