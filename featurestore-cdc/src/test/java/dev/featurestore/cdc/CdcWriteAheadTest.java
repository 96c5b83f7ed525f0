package dev.featurestore.cdc;

import static dev.featurestore.cdc.CdcTestSupport.LOG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.featurestore.CommitConflictException;
import dev.featurestore.FeatureStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A change-log-only pipeline writes the next sealed batch's files while the current batch
 * commits: commits stay in sequence order, every entry lands once, and files written ahead for a
 * batch that is not committed then are deleted.
 */
class CdcWriteAheadTest {
  @TempDir Path dir;

  private static final int BATCH = 100;
  private static final int ENTRIES = 4 * BATCH;

  private CdcPipeline.Builder changeLog(FeatureStore store, Hooks hooks) {
    return CdcPipeline.builder(store).changeLog(LOG).shardId("w").writeAheadLog(dir.resolve("wal"))
        .batchSize(BATCH).flushInterval(Duration.ZERO).commitRetries(2).retryBackoff(Duration.ofMillis(1)).hooks(hooks);
  }

  private static void write(CdcPipeline cdc) {
    for (int i = 1; i <= ENTRIES; i++) {
      cdc.insert("users", "u" + i, Map.of("id", i));
    }
  }

  /** Data files on disk that the table does not reference. */
  private static Set<String> orphans(FeatureStore store) {
    Table table = store.table(LOG).unwrap(Table.class);
    table.refresh();
    Set<String> referenced;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      referenced = StreamSupport.stream(tasks.spliterator(), false)
          .map(t -> Path.of(t.file().location().replaceFirst("^file:", "")).toString()).collect(Collectors.toSet());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Path data = Path.of(table.location().replaceFirst("^file:", "")).resolve("data");
    try (Stream<Path> files = Files.walk(data)) {
      return files.filter(p -> p.toString().endsWith(".parquet")).map(Path::toString)
          .filter(p -> !referenced.contains(p)).collect(Collectors.toSet());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<Long> marksInCommitOrder(FeatureStore store) {
    Table table = store.table(LOG).unwrap(Table.class);
    table.refresh();
    return StreamSupport.stream(table.snapshots().spliterator(), false)
        .map(s -> s.summary().get(CdcTables.markKey("w"))).filter(m -> m != null).map(Long::parseLong).toList();
  }

  @Test
  void batchesQueuedBehindACommit_nextWrittenAhead_committedInOrderOnce_noOrphanFiles() throws Exception {
    CountDownLatch accepted = new CountDownLatch(1);
    AtomicInteger commits = new AtomicInteger();
    Set<String> writingThreads = ConcurrentHashMap.newKeySet();
    Hooks hooks = point -> {
      if (point.equals("flush.before-write")) {
        writingThreads.add(Thread.currentThread().getName());
      }
      if (point.equals("commit.before") && commits.incrementAndGet() == 1) {
        await(accepted); // the first commit waits until every batch is sealed behind it
      }
    };
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
        CdcPipeline cdc = changeLog(store, hooks).build()) {
      write(cdc);
      accepted.countDown();

      cdc.flush();

      assertThat(CdcTestSupport.sequences(store, LOG))
          .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(1, ENTRIES).boxed().toList());
      assertThat(marksInCommitOrder(store)).containsExactly(100L, 200L, 300L, 400L);
      assertThat(writingThreads).contains("featurestore-cdc-writer-w");
      assertThat(orphans(store)).isEmpty();
      assertThat(cdc.walSegments()).isZero();
    }
  }

  @Test
  void commitFailsWhileTheNextBatchIsWrittenAhead_itsFilesDeleted_laterFlushLandsEveryEntryOnce() throws Exception {
    CountDownLatch accepted = new CountDownLatch(1);
    AtomicInteger commits = new AtomicInteger();
    AtomicBoolean failing = new AtomicBoolean(true);
    Hooks hooks = point -> {
      if (point.equals("commit.before")) {
        int n = commits.incrementAndGet();
        if (n == 1) {
          await(accepted);
        } else if (failing.get()) {
          throw new CommitFailedException("injected: lost the race");
        }
      }
    };
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"));
        CdcPipeline cdc = changeLog(store, hooks).build()) {
      write(cdc);
      accepted.countDown();

      Throwable thrown = catchThrowable(cdc::flush);

      assertThat(thrown).isInstanceOf(CommitConflictException.class)
          .hasMessageStartingWith("Cannot commit CDC batch (sequences 101..200) to table cdc.events after 2 attempts;");
      assertThat(CdcTestSupport.sequences(store, LOG)).hasSize(BATCH);
      assertThat(cdc.metrics().pending()).isEqualTo(ENTRIES - BATCH);

      failing.set(false);
      cdc.flush();

      assertThat(CdcTestSupport.sequences(store, LOG))
          .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(1, ENTRIES).boxed().toList());
      assertThat(marksInCommitOrder(store)).containsExactly(100L, 200L, 300L, 400L);
      assertThat(orphans(store)).isEmpty();
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(60, TimeUnit.SECONDS)) {
        throw new AssertionError("entries were not accepted in time");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
