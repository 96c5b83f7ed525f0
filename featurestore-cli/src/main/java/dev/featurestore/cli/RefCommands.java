package dev.featurestore.cli;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.SnapshotInfo;
import dev.featurestore.SnapshotManager;
import java.time.Instant;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The commands that move a table's refs: rollback, tag, branch. */
final class RefCommands {
  private RefCommands() {}

  @Command(name = "rollback", description = "Makes an earlier snapshot the current one (by id or by time). Nothing is deleted.")
  static final class Rollback extends StoreCommand.OnTable {
    static final class Target {
      @Option(names = "--to", paramLabel = "SNAPSHOT_ID", required = true, description = "An ancestor snapshot of the current one.")
      Long snapshot;

      @Option(names = "--to-time", paramLabel = "TIME", required = true, converter = Converters.InstantConverter.class,
          description = "The snapshot that was current at this time.")
      Instant time;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Target target;

    @Mixin Output output;

    @Override
    int run(FeatureStore store, FeatureTable t) {
      SnapshotInfo now = target.snapshot != null
          ? t.snapshots().rollbackTo(target.snapshot)
          : t.snapshots().rollbackToTime(target.time);
      output.object(out(), Views.snapshot(now));
      return ExitCodes.OK;
    }
  }

  /** The shared shape of tag and branch: create (default), --replace, --remove. */
  abstract static class RefCommand extends StoreCommand.OnTable {
    @Parameters(index = "1", paramLabel = "NAME", description = "The ref's name.")
    String name;

    @Option(names = "--snapshot", paramLabel = "ID", description = "The snapshot (default: the current one).")
    Long snapshot;

    @Option(names = "--replace", description = "Move an existing ref to the snapshot.")
    boolean replace;

    @Option(names = "--remove", description = "Remove the ref (its snapshots stay until expired).")
    boolean remove;

    @Mixin Output output;

    @Override
    int run(FeatureStore store, FeatureTable t) {
      InvalidArgumentException.check(!(replace && remove), "Cannot change ref: --replace and --remove together: %s", name);
      SnapshotManager s = t.snapshots();
      if (remove) {
        remove(s, name);
        output.object(out(), Values.row("table", t.id().toString(), "ref", name, "type", kind(), "removed", true));
        return ExitCodes.OK;
      }
      long id = snapshot != null ? snapshot : s.current()
          .orElseThrow(() -> new InvalidArgumentException("Cannot create " + kind() + ": the table has no snapshot yet: " + t.id()))
          .snapshotId();
      if (replace) {
        replace(s, name, id);
      } else {
        create(s, name, id);
      }
      output.object(out(), Values.row("table", t.id().toString(), "ref", name, "type", kind(), "snapshot_id", s.refs().get(name)));
      return ExitCodes.OK;
    }

    abstract String kind();

    abstract void create(SnapshotManager s, String name, long id);

    abstract void replace(SnapshotManager s, String name, long id);

    abstract void remove(SnapshotManager s, String name);
  }

  @Command(name = "tag", description = "Tags a snapshot (default: the current one); --replace moves a tag, --remove drops it.")
  static final class Tag extends RefCommand {
    @Override
    String kind() {
      return "tag";
    }

    @Override
    void create(SnapshotManager s, String name, long id) {
      s.createTag(name, id);
    }

    @Override
    void replace(SnapshotManager s, String name, long id) {
      s.replaceTag(name, id);
    }

    @Override
    void remove(SnapshotManager s, String name) {
      s.removeTag(name);
    }
  }

  @Command(name = "branch", description = "Branches at a snapshot (default: the current one); --replace moves a branch, --remove drops it.")
  static final class Branch extends RefCommand {
    @Override
    String kind() {
      return "branch";
    }

    @Override
    void create(SnapshotManager s, String name, long id) {
      s.createBranch(name, id);
    }

    @Override
    void replace(SnapshotManager s, String name, long id) {
      s.replaceBranch(name, id);
    }

    @Override
    void remove(SnapshotManager s, String name) {
      s.removeBranch(name);
    }
  }
}
