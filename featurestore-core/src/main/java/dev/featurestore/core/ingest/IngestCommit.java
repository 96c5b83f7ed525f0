package dev.featurestore.core.ingest;

import dev.featurestore.CommitConflictException;
import dev.featurestore.NotFoundException;
import dev.featurestore.ValidationException;
import dev.featurestore.core.base.CommitMarks;
import dev.featurestore.core.base.CommitPhases;
import dev.featurestore.core.base.Errors;
import dev.featurestore.core.base.TableHandle;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;

/**
 * Lands an ingest's data files as one snapshot, under the table's commit lock: a plain append, or
 * the schema change and the append as one transaction (one catalog commit) when auto evolution
 * added columns. The snapshot summary carries the source kind, the user's properties and the
 * ingest's own mark, by which the committed snapshot is found afterwards.
 */
final class IngestCommit {
  private final TableHandle handle;
  private final String sourceKind;
  private final Map<String, String> snapshotProperties;
  private final String branch;
  private final CommitMarks ingestMark = CommitMarks.under(IngestOperation.INGEST_ID_PROPERTY);

  /** @param branch null for main */
  IngestCommit(TableHandle handle, String sourceKind, Map<String, String> snapshotProperties, String branch) {
    this.handle = handle;
    this.sourceKind = sourceKind;
    this.snapshotProperties = Collections.unmodifiableMap(new LinkedHashMap<>(snapshotProperties));
    this.branch = branch;
  }

  /**
   * Commits {@code files} (and the columns {@code evolution} added); returns the id of the snapshot
   * this ingest committed.
   *
   * @throws CommitConflictException if the catalog was locked or the schema changed concurrently
   */
  long commit(List<DataFile> files, IngestAutoEvolution evolution) {
    return handle.commitLocked(() -> {
      try {
        return commitUnlocked(files, evolution);
      } catch (RuntimeException e) {
        if (Errors.catalogBusy(e)) {
          // the catalog row UPDATE never ran (SQLite answered busy/locked): nothing landed
          throw new CommitConflictException("Cannot commit ingest to table " + handle.id()
              + ": the catalog is locked by another writer: " + Errors.rootMessage(e), e);
        }
        throw e;
      }
    });
  }

  private long commitUnlocked(List<DataFile> files, IngestAutoEvolution evolution) {
    Table current = handle.table();
    if (branch != null) {
      SnapshotRef ref = current.refs().get(branch);
      if (ref == null) {
        throw new NotFoundException("Cannot ingest to branch: unknown branch: " + branch);
      }
      if (ref.isTag()) {
        throw new ValidationException("Cannot ingest to branch: ref is a tag: " + branch);
      }
    }
    if (!evolution.changed()) {
      AppendFiles append = CommitPhases.forTable(current, current.newAppend());
      files.forEach(append::appendFile);
      summarize(append).commit();
    } else {
      // schema change and append: one transaction, one catalog commit
      Transaction transaction = current.newTransaction();
      evolution.commitTo(transaction.updateSchema(), transaction.table());
      AppendFiles append = CommitPhases.forTable(current, transaction.newAppend());
      files.forEach(append::appendFile);
      summarize(append).commit();
      transaction.commitTransaction();
    }
    // the snapshot this ingest committed, found by its mark (not "whatever is current now")
    long snapshotId = ingestMark.committedSnapshotId(current, branch);
    java.util.Map<String, Object> details = new java.util.LinkedHashMap<>();
    details.put("source", sourceKind);
    details.put("files", files.size());
    details.put("rows", files.stream().mapToLong(DataFile::recordCount).sum());
    details.put("bytes", files.stream().mapToLong(DataFile::fileSizeInBytes).sum());
    if (evolution.changed()) {
      details.put("schema_changed", true);
    }
    if (branch != null) {
      details.put("branch", branch);
    }
    handle.record("ingest", snapshotId, details);
    return snapshotId;
  }

  private <T extends SnapshotUpdate<T>> T summarize(T update) {
    snapshotProperties.forEach(update::set);
    if (branch != null) {
      update.toBranch(branch);
    }
    ingestMark.mark(update);
    return update.set(IngestOperation.SOURCE_PROPERTY, sourceKind);
  }
}
