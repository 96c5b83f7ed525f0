package dev.featurestore.core.maintenance;

import dev.featurestore.RewriteManifestsResult;
import dev.featurestore.core.base.CommitMarks;
import dev.featurestore.core.base.TableHandle;
import java.util.OptionalLong;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * Rewrites the current snapshot's data manifests with Iceberg's {@code RewriteManifests},
 * clustered by partition spec, into manifests of {@code commit.manifest.target-size-bytes}.
 */
final class ManifestRewrite {
  private ManifestRewrite() {}

  static RewriteManifestsResult run(TableHandle handle) {
    return handle.commitLocked(() -> {
      Table table = handle.table();
      Snapshot before = table.currentSnapshot();
      if (before == null) {
        return new RewriteManifestsResult(OptionalLong.empty(), 0, 0);
      }
      int manifestsBefore = before.dataManifests(table.io()).size();
      if (manifestsBefore <= 1) {
        return new RewriteManifestsResult(OptionalLong.empty(), manifestsBefore, manifestsBefore);
      }
      CommitMarks.carryStreamMarks(before, table.rewriteManifests().clusterBy(file -> file.specId())).commit();
      table.refresh();
      Snapshot after = table.currentSnapshot();
      handle.record("rewrite_manifests", after.snapshotId(), java.util.Map.of("manifests_before", manifestsBefore,
          "manifests_after", after.dataManifests(table.io()).size()));
      return new RewriteManifestsResult(
          OptionalLong.of(after.snapshotId()), manifestsBefore, after.dataManifests(table.io()).size());
    });
  }
}
