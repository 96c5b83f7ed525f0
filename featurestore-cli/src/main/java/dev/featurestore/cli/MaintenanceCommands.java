package dev.featurestore.cli;

import dev.featurestore.CompactionResult;
import dev.featurestore.Compaction;
import dev.featurestore.ExpireResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.OrphanFileRemoval;
import dev.featurestore.OrphanFilesResult;
import dev.featurestore.SnapshotExpiry;
import dev.featurestore.Tiering;
import dev.featurestore.TieringResult;
import dev.featurestore.TieringStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The maintenance commands: expire, orphans, compact, tier. */
final class MaintenanceCommands {
  private MaintenanceCommands() {}

  @Command(name = "expire", description = "Expires old snapshots and deletes the files only they referenced.")
  static final class Expire extends StoreCommand.OnTable {
    @Option(names = "--retain-last", paramLabel = "N", description = "Keep at least the last N snapshots.")
    Integer retainLast;

    @Option(names = "--older-than", paramLabel = "AGE", converter = Converters.DurationConverter.class,
        description = "Expire snapshots older than this, e.g. 7d.")
    Duration olderThan;

    @Option(names = "--snapshot", paramLabel = "ID", description = "Expire this snapshot (repeatable).")
    long[] snapshots = new long[0];

    @Option(names = "--keep-files", description = "Expire the snapshots but delete no file.")
    boolean keepFiles;

    @Mixin Output output;

    @Override
    int run(FeatureStore store, FeatureTable t) {
      InvalidArgumentException.check(retainLast != null || olderThan != null || snapshots.length > 0,
          "Cannot expire snapshots: say which, with --retain-last, --older-than or --snapshot: %s", t.id());
      SnapshotExpiry expiry = t.maintenance().expireSnapshots();
      if (retainLast != null) {
        expiry = expiry.retainLast(retainLast);
      }
      if (olderThan != null) {
        expiry = expiry.olderThan(Instant.now().minus(olderThan));
      }
      for (long id : snapshots) {
        expiry = expiry.expireSnapshotId(id);
      }
      ExpireResult r = expiry.deleteFiles(!keepFiles).execute();
      output.object(out(), Values.row("table", t.id().toString(), "expired_snapshots", r.expiredSnapshots(),
          "expired_snapshot_ids", r.expiredSnapshotIds().stream().map(String::valueOf).reduce((a, b) -> a + "," + b).orElse(""),
          "deleted_data_files", r.deletedDataFiles(), "deleted_delete_files", r.deletedDeleteFiles(),
          "deleted_manifests", r.deletedManifests(), "deleted_manifest_lists", r.deletedManifestLists(),
          "deleted_other_files", r.deletedOtherFiles(), "bytes_freed", r.bytesFreed()));
      return ExitCodes.OK;
    }
  }

  @Command(name = "orphans", description = "Lists files in the table's location that no snapshot references (a dry run); --delete removes them.")
  static final class Orphans extends StoreCommand.OnTable {
    @Option(names = "--older-than", paramLabel = "AGE", converter = Converters.DurationConverter.class,
        description = "Only files older than this (default: 3h; files of running writes are younger).")
    Duration olderThan;

    @Option(names = "--delete", description = "Delete the orphan files (default: only list them).")
    boolean delete;

    @Mixin Output output;

    @Override
    int run(FeatureStore store, FeatureTable t) {
      OrphanFileRemoval removal = t.maintenance().removeOrphanFiles();
      if (olderThan != null) {
        removal = removal.olderThan(olderThan);
      }
      OrphanFilesResult r = delete ? removal.execute() : removal.dryRun();
      output.object(out(), Values.row("table", t.id().toString(), "deleted", r.deleted(), "scanned_files", r.scannedFiles(),
          "referenced_files", r.referencedFiles(), "orphan_bytes", r.bytes(),
          "orphans", r.candidates().stream().map(c -> (Object) Values.row("location", c.location(), "size_bytes", c.sizeBytes(),
              "age", c.age())).toList()));
      return ExitCodes.OK;
    }
  }

  @Command(name = "compact", description = "Rewrites small data files (and applies delete files) into larger ones.")
  static final class Compact extends StoreCommand.OnTable {
    @Option(names = "--target-file-size", paramLabel = "BYTES", description = "The size to aim for.")
    Long targetFileSize;

    @Option(names = "--small-file-threshold", paramLabel = "BYTES", description = "Files below this size are rewritten.")
    Long smallFileThreshold;

    @Option(names = "--min-input-files", paramLabel = "N", description = "Rewrite a partition only with at least N files.")
    Integer minInputFiles;

    @Option(names = "--size-tiers", paramLabel = "RATIO:FILES", converter = Converters.SizeTiersConverter.class,
        description = "Merge only files of similar size, e.g. 2:4: smallest first, a file joins the files before it "
            + "if at most RATIO times their total size; a tier of at least FILES files is rewritten. "
            + "Without it, every small file is (a full compaction).")
    Converters.SizeTiers sizeTiers;

    @Mixin Output output;

    @Override
    int run(FeatureStore store, FeatureTable t) {
      Compaction c = t.maintenance().compact();
      if (targetFileSize != null) {
        c = c.targetFileSizeBytes(targetFileSize);
      }
      if (smallFileThreshold != null) {
        c = c.smallFileThresholdBytes(smallFileThreshold);
      }
      if (minInputFiles != null) {
        c = c.minInputFiles(minInputFiles);
      }
      if (sizeTiers != null) {
        c = c.sizeTiers(sizeTiers.sizeRatio(), sizeTiers.minFiles());
      }
      Progress progress = progress("compact");
      progress.update(0, 0, "rewriting " + t.id());
      CompactionResult r;
      try {
        r = c.execute();
      } finally {
        progress.finish();
      }
      output.object(out(), Values.row("table", t.id().toString(), "snapshot_id", r.snapshotId(),
          "rewritten_data_files", r.rewrittenDataFiles(), "added_data_files", r.addedDataFiles(),
          "removed_delete_files", r.removedDeleteFiles(), "rewritten_bytes", r.rewrittenBytes(),
          "added_bytes", r.addedBytes(), "rows", r.rows(), "partitions", r.partitions()));
      return ExitCodes.OK;
    }
  }

  @Command(name = "tier", description = "Moves data files older than an age to the cold bucket (--cold-env), or shows the split (--status).")
  static final class Tier extends StoreCommand.OnTable {
    @Option(names = "--older-than", paramLabel = "AGE", converter = Converters.DurationConverter.class,
        description = "Move data files older than this, e.g. 30d.")
    Duration olderThan;

    @Option(names = "--files-per-commit", paramLabel = "N", description = "Files moved per commit (default: " + Tiering.DEFAULT_FILES_PER_COMMIT + ").")
    Integer filesPerCommit;

    @Option(names = "--dry-run", description = "Say what would move, move nothing.")
    boolean dryRun;

    @Option(names = "--status", description = "Show hot and cold files and the cache, move nothing.")
    boolean status;

    @Mixin Output output;

    @Override
    int run(FeatureStore store, FeatureTable t) {
      Tiering tiering = t.tiering();
      if (status) {
        TieringStatus s = tiering.status();
        output.object(out(), Values.row("table", t.id().toString(), "hot_data_files", s.hotDataFiles(), "hot_bytes", s.hotBytes(),
            "cold_data_files", s.coldDataFiles(), "cold_bytes", s.coldBytes(), "cache", String.valueOf(s.cache())));
        return ExitCodes.OK;
      }
      InvalidArgumentException.check(olderThan != null, "Cannot tier table: say which files, with --older-than: %s", t.id());
      tiering = tiering.olderThan(olderThan);
      if (filesPerCommit != null) {
        tiering = tiering.filesPerCommit(filesPerCommit);
      }
      Progress progress = progress("tier");
      tiering = tiering.listener(p -> progress.update(p.batch(), p.batches(),
          "batch " + p.batch() + "/" + p.batches() + ": " + Progress.count(p.files(), "files") + ", " + Values.bytes(p.bytes())));
      TieringResult r;
      try {
        r = dryRun ? tiering.dryRun() : tiering.execute();
      } finally {
        progress.finish();
      }
      output.object(out(), Values.row("table", t.id().toString(), "dry_run", r.dryRun(), "files_moved", r.filesMoved(),
          "bytes_moved", r.bytesMoved(), "commits", r.commits(), "skipped", r.skipped().size(),
          "hot_leftovers_deleted", r.hotLeftoversDeleted(),
          "files", r.movedFiles().stream().map(f -> (Object) Map.of("location", f)).toList()));
      return ExitCodes.OK;
    }
  }
}
