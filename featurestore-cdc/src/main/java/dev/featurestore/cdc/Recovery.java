package dev.featurestore.cdc;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a pipeline resumes from when it opens: each table's high-water mark for the shard, the
 * logged entries above the lowest mark (to replay, in order) and the next sequence id.
 */
record Recovery(long[] marks, List<Logged> replay, long nextSeq) {
  private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

  /** Reads the marks, recovers the log (as {@code s.walRecovery()} says) and deletes the segments every table holds. */
  static Recovery load(CdcSettings s, WriteAheadLog wal, List<TableWriter> writers) {
    String shard = s.shard();
    long[] marks = new long[writers.size()];
    long minMark = Long.MAX_VALUE;
    long maxMark = 0;
    for (int i = 0; i < writers.size(); i++) {
      marks[i] = CdcTables.readMark(writers.get(i).table(), shard).orElse(0);
      minMark = Math.min(minMark, marks[i]);
      maxMark = Math.max(maxMark, marks[i]);
    }
    List<Logged> logged = wal.recover(s.walRecovery());
    long maxLogged = logged.isEmpty() ? 0 : logged.get(logged.size() - 1).seq();
    wal.deleteThrough(minMark);
    List<Logged> replay = new ArrayList<>();
    for (Logged l : logged) {
      if (l.seq() > minMark) {
        replay.add(new Logged(l.entry.withSequence(l.seq(), shard), l.acceptedMillis, l.beforeJson, l.afterJson));
      }
    }
    if (!replay.isEmpty()) {
      LOG.info("CDC shard {}: replaying {} entries from the write-ahead log (sequences {}..{}; table marks {})",
          shard, replay.size(), replay.get(0).seq(), replay.get(replay.size() - 1).seq(), Arrays.toString(marks));
    }
    return new Recovery(marks, replay, Math.max(maxLogged, maxMark) + 1);
  }
}
