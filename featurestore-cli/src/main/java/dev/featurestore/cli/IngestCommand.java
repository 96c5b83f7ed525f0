package dev.featurestore.cli;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.Ingest;
import dev.featurestore.IngestResult;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.NotFoundException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ingest}: a CSV, JSON or Parquet file into a table, as one atomic commit, with progress. */
@Command(name = "ingest", description = "Appends a CSV, JSON (lines or array) or Parquet file to a table in one commit.")
final class IngestCommand extends StoreCommand {
  enum Format { csv, json, parquet }

  @Parameters(index = "0", paramLabel = "FILE", description = "The file; its format from the extension unless --format.")
  Path file;

  @Option(names = {"-t", "--table"}, required = true, paramLabel = "TABLE", description = "The table: namespace.name")
  String table;

  @Option(names = "--format", paramLabel = "FORMAT", description = "${COMPLETION-CANDIDATES} (default: from the extension).")
  Format format;

  @Option(names = "--branch", paramLabel = "BRANCH", description = "Commit to this branch instead of main.")
  String branch;

  @Option(names = "--auto-evolve", description = "Add columns the file has and the table lacks.")
  boolean autoEvolve;

  @Option(names = "--dry-run", description = "Read and check the file, write nothing.")
  boolean dryRun;

  @Option(names = "--property", paramLabel = "KEY=VALUE", description = "A snapshot summary property (repeatable).")
  Map<String, String> properties = new LinkedHashMap<>();

  @Mixin Output output;

  @Override
  int run(FeatureStore store) {
    if (!Files.isRegularFile(file)) {
      throw new NotFoundException("Cannot ingest file: no such file: " + file);
    }
    FeatureTable t = store.table(table);
    Format f = format != null ? format : fromExtension(file);
    Ingest ingest = switch (f) {
      case csv -> t.ingest().csv(file);
      case json -> t.ingest().json(file);
      case parquet -> t.ingest().parquet(file);
    };
    if (branch != null) {
      ingest = ingest.toBranch(branch);
    }
    ingest = ingest.autoEvolveSchema(autoEvolve);
    for (Map.Entry<String, String> p : properties.entrySet()) {
      ingest = ingest.snapshotProperty(p.getKey(), p.getValue());
    }
    Progress progress = progress("ingest");
    ingest = ingest.listener(p -> progress.update(p.rows(), 0,
        Progress.count(p.rows(), "rows") + ", " + Progress.count(p.filesWritten(), "files") + ", " + Values.bytes(p.bytesWritten())), 10_000);
    IngestResult r;
    try {
      r = dryRun ? ingest.apply() : ingest.commit();
    } finally {
      progress.finish();
    }
    output.object(out(), Values.row("table", t.id().toString(), "dry_run", dryRun, "snapshot_id", r.snapshotId(),
        "rows", r.rows(), "data_files", r.dataFiles(), "data_bytes", r.dataBytes(), "added_columns", String.join(",", r.addedColumns()),
        "duration_ms", r.duration().toMillis()));
    return ExitCodes.OK;
  }

  private static Format fromExtension(Path file) {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    if (name.endsWith(".csv")) {
      return Format.csv;
    }
    if (name.endsWith(".json") || name.endsWith(".jsonl") || name.endsWith(".ndjson")) {
      return Format.json;
    }
    if (name.endsWith(".parquet")) {
      return Format.parquet;
    }
    throw new InvalidArgumentException("Cannot ingest file: unknown extension, pass --format csv|json|parquet: " + file);
  }
}
