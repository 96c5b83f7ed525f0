package dev.featurestore.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code featurestore} command: inspect, query and operate a store from a terminal, over the
 * library's public API. See docs/cli.md.
 *
 * <pre>
 * featurestore --root my-store history features.feature_events
 * featurestore --root my-store sql "SELECT count(*) FROM feature_events" --as-of v1 --output json
 * </pre>
 *
 * <p>The exit status says what failed (0 ok, 1 a failed check, 2 bad input, 3 not found, 4
 * conflict, 5 storage); the message on standard error is the library's, with no stack trace
 * unless {@code --verbose}.
 */
@Command(name = "featurestore", mixinStandardHelpOptions = true, versionProvider = FeatureStoreCli.Version.class,
    usageHelpAutoWidth = true, sortOptions = false,
    description = "Inspect, query and operate a featurestore: Iceberg feature tables on local disk or in a bucket.",
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
        " 0:done", " 1:a check failed (doctor), or an unexpected error", " 2:bad input (arguments, options, files, SQL)",
        " 3:not found (store, table, snapshot, ref, object)", " 4:conflict (the store changed meanwhile, or already holds it)",
        " 5:storage failure (bucket, disk, catalog)"},
    subcommands = {
        DoctorCommand.class,
        InspectCommands.Tables.class, InspectCommands.Describe.class, InspectCommands.History.class,
        InspectCommands.SchemaCommand.class, InspectCommands.Files.class,
        SqlCommand.class, IngestCommand.class,
        RefCommands.Rollback.class, RefCommands.Tag.class, RefCommands.Branch.class,
        MaintenanceCommands.Expire.class, MaintenanceCommands.Orphans.class, MaintenanceCommands.Compact.class,
        MaintenanceCommands.Tier.class,
        ObjectsCommand.class, ReportCommand.class, CdcCommand.class,
        CommandLine.HelpCommand.class})
public final class FeatureStoreCli implements Callable<Integer> {
  @Mixin GlobalOptions global;
  @Spec CommandSpec spec;

  private final PrintStream out;
  private final PrintStream err;

  private FeatureStoreCli(PrintStream out, PrintStream err, Map<String, String> env) {
    this.out = out;
    this.err = err;
    this.global = new GlobalOptions(env);
  }

  /** Runs the command and exits with its status. */
  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err, System.getenv()));
  }

  /** Runs one command line with these streams and this environment; returns the exit status. */
  static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
    FeatureStoreCli cli = new FeatureStoreCli(out, err, env);
    CommandLine cmd = new CommandLine(cli);
    cmd.addSubcommand("completion", new AutoComplete.GenerateCompletion());
    cmd.getSubcommands().get("completion").getCommandSpec().usageMessage().hidden(false)
        .description("Prints a bash/zsh completion script: source <(featurestore completion)");
    cmd.setCaseInsensitiveEnumValuesAllowed(true);
    cmd.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    cmd.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
    cmd.setExecutionExceptionHandler((failure, command, parsed) -> {
      command.getErr().println("featurestore: " + ExitCodes.message(failure));
      if (cli.global.verbose) {
        failure.printStackTrace(command.getErr());
      }
      command.getErr().flush();
      return ExitCodes.of(failure);
    });
    cmd.setParameterExceptionHandler((failure, arguments) -> {
      CommandLine command = failure.getCommandLine();
      PrintWriter e = command.getErr();
      e.println("featurestore: " + failure.getMessage());
      CommandLine.UnmatchedArgumentException.printSuggestions(failure, e);
      e.println("Try '" + command.getCommandSpec().qualifiedName() + " --help' for more information.");
      e.flush();
      return ExitCodes.BAD_INPUT;
    });
    return cmd.execute(args);
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return ExitCodes.BAD_INPUT;
  }

  GlobalOptions global() {
    return global;
  }

  /** The raw standard output, for bytes (objects get, report, Parquet). */
  PrintStream stdout() {
    return out;
  }

  PrintStream stderr() {
    return err;
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = FeatureStoreCli.class.getPackage().getImplementationVersion();
      return new String[] {"featurestore " + (v == null ? "(development build)" : v),
          "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"};
    }
  }
}
