package dev.featurestore.cdc;

import dev.featurestore.core.base.Errors;
import java.util.List;

/**
 * Opening a pipeline, in order: the write-ahead log, the shard lease, the target tables and their
 * writers, the files a killed batch left, recovery of the log above the tables' marks, the
 * committer and acceptor, the write path's warm-up, the flusher (not started), and the tables'
 * background maintenance. On a failure what was opened is closed again, and the failure is typed
 * (a storage failure while reading the tables is a {@code StorageException}).
 */
record PipelineParts(ShardLease lease, BatchCommitter committer, EntryAcceptor acceptor, Flusher flusher,
    StreamMaintenance maintenance) {
  static PipelineParts open(CdcSettings s, PipelineMetrics metrics) {
    WriteAheadLog wal = new WriteAheadLog(s.walDirectory(), s.shard(), s.fsync(), s.hooks());
    ShardLease lease = ShardLease.NONE;
    try {
      lease = ShardLease.acquire(s);
      Hooks hooks = lease.fencing(s.hooks());
      PendingFiles pending = new PendingFiles(wal.directory(), s.fsync(), wal::later);
      CdcTables.Writers targets = CdcTables.writers(s, hooks, pending);
      List<TableWriter> writers = targets.all();
      pending.clean(writers); // files a killed batch may have left
      Recovery recovery = Recovery.load(s, wal, writers);
      metrics.skippedWalRecords.set(wal.skippedRecords());
      metrics.recovered(recovery.replay().size());
      BatchCommitter committer = new BatchCommitter(s, writers, recovery.marks(), metrics);
      EntryAcceptor acceptor = new EntryAcceptor(s, wal, metrics, committer::minCommitted, recovery.replay(),
          recovery.nextSeq());
      s.hooks().at("recovery.loaded");
      CdcTables.warmUp(writers, s.shard());
      WriteAhead writeAhead = targets.changeLogOnly() == null ? null : new WriteAhead(targets.changeLogOnly(), s.shard());
      Flusher flusher = new Flusher(s, acceptor, committer, writeAhead);
      return new PipelineParts(lease, committer, acceptor, flusher, StreamMaintenance.start(s));
    } catch (RuntimeException e) {
      lease.close();
      wal.close();
      // reading the tables (their marks, the snapshots a killed batch's marker is checked against)
      // goes through Iceberg, which lets the storage client's exceptions through untranslated
      throw Errors.translate(e, "open CDC pipeline of shard " + s.shard());
    }
  }
}
