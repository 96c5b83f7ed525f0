package dev.featurestore.cli;

import dev.featurestore.FeatureStore;
import dev.featurestore.TableId;
import dev.featurestore.cdc.CdcStatus;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code cdc status}: a pipeline's committed marks and its write-ahead log, read-only ({@link CdcStatus}). */
@Command(name = "cdc", description = "CDC pipelines: what they committed and what their write-ahead logs hold.",
    subcommands = CdcCommand.Status.class)
final class CdcCommand {
  @Command(name = "status", description = "Shows each shard's committed mark in a target table and its write-ahead log (--wal).")
  static final class Status extends StoreCommand.OnTable {
    @Option(names = "--wal", paramLabel = "DIR", description = "The pipeline's write-ahead log directory.")
    Path wal;

    @Mixin Output output;

    @Override
    int run(FeatureStore store, dev.featurestore.FeatureTable t) {
      TableId id = t.id();
      CdcStatus s = wal == null ? CdcStatus.read(store, id) : CdcStatus.read(store, id, wal);
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("table", id.toString());
      d.put("marks", s.marks().entrySet().stream().map(e -> (Object) Values.row("shard", e.getKey(), "max_seq", e.getValue())).toList());
      if (wal != null) {
        d.put("wal_directory", wal.toString());
        d.put("wal", s.wal().stream().map(w -> (Object) Values.row("shard", w.shard(), "segments", w.segments(), "bytes", w.bytes(),
            "first_seq", w.firstSequence(), "committed_mark", w.committedMark(), "segments_above_mark", w.segmentsAboveMark())).toList());
      }
      output.object(out(), d);
      return ExitCodes.OK;
    }
  }
}
