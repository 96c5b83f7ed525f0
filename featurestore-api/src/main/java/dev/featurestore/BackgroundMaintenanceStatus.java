package dev.featurestore;

import java.time.Instant;
import java.util.Optional;

/**
 * What a {@link BackgroundMaintenance} did since it started.
 *
 * @param table the table maintained
 * @param running false once closed
 * @param leaseHeld whether this process holds the table's maintenance lease (always true without a lease database)
 * @param rounds checks made
 * @param roundsSkipped checks skipped because another process held the lease
 * @param roundsFailed checks that failed (a conflict with a writer, an unknown commit outcome, a storage failure)
 * @param snapshotsExpired snapshots expired
 * @param dataFilesCompacted data files rewritten by compaction
 * @param deleteFilesRemoved delete files (and deletion vectors) folded into compacted files
 * @param manifestsRewritten data manifests replaced by manifest rewrites
 * @param orphanFilesRemoved orphan files deleted
 * @param bytesFreed bytes deleted by expiry and orphan removal
 * @param leaseTakeovers times this process took the lease over from a holder whose lease had expired
 * @param leaseLosses times this process found its lease taken over by another
 * @param lastRun when the last check ran
 * @param lastError the message of the last failed check, if any
 */
public record BackgroundMaintenanceStatus(
    TableId table, boolean running, boolean leaseHeld, long rounds, long roundsSkipped, long roundsFailed,
    long snapshotsExpired, long dataFilesCompacted, long deleteFilesRemoved, long manifestsRewritten,
    long orphanFilesRemoved, long bytesFreed, long leaseTakeovers, long leaseLosses,
    Optional<Instant> lastRun, Optional<String> lastError) {}
