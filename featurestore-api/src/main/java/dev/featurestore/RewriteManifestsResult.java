package dev.featurestore;

import java.util.OptionalLong;

/**
 * What a manifest rewrite did.
 *
 * @param snapshotId the commit it made; empty if the table had no snapshot
 * @param manifestsBefore data manifests of the current snapshot before
 * @param manifestsAfter data manifests of the current snapshot after
 */
public record RewriteManifestsResult(OptionalLong snapshotId, long manifestsBefore, long manifestsAfter) {}
