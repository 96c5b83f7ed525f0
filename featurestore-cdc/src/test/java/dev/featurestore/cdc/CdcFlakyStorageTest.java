package dev.featurestore.cdc;

import static dev.featurestore.cdc.CdcTestSupport.LOG;
import static dev.featurestore.cdc.CdcTestSupport.STATE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.BackgroundMaintenanceStatus;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreException;
import dev.featurestore.MaintenancePolicy;
import dev.featurestore.ObjectStorage;
import dev.featurestore.StorageException;
import dev.featurestore.TableId;
import dev.featurestore.core.storage.s3.ObjectStorageIO;
import dev.featurestore.core.storage.s3.ProviderGate;
import dev.featurestore.core.storage.s3.S3TestServer;
import dev.featurestore.core.testing.Await;
import dev.featurestore.core.testing.ChildJvm;
import dev.featurestore.core.testing.HandClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A CDC stream against a real S3 server (s3proxy) behind a B2-behaving gate that drops
 * connections, answers 500 and 503 and stalls responses at random (seeded): commits and the
 * background maintenance of both tables hit the faults. Flushes may fail, always with a typed
 * {@link FeatureStoreException}; the entries stay pending and land later. With the faults off at
 * the end, the change log holds every sequence once, the current state equals the model, no file
 * is left that no snapshot references once orphans are removed, and no pipeline thread is left.
 */
class CdcFlakyStorageTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir Path dir;

  /**
   * Faults per request (about one in five): with two attempts per request, a commit (some ten
   * requests) fails every few. Few 503s: the client backs off longer on them (throttling).
   */
  private static final ProviderGate.Faults FAULTS = new ProviderGate.Faults(0.07, 0.08, 0.03, 0.03, 20, 7);
  private static final int DOCS = 25;

  private final HandClock clock = HandClock.aheadOfSystem();
  private ObjectStorage storage;
  private FileIO bucketIO;
  private final Random ops = new Random(11);
  /** collection/doc to the sequence of its last insert or update. */
  private final Map<String, Long> model = new TreeMap<>();
  private final List<Throwable> untyped = Collections.synchronizedList(new ArrayList<>());
  private int failedFlushes;

  @BeforeEach
  void open(TestInfo test) {
    clock.advance(Duration.ofHours(1)); // every snapshot is past maxSnapshotAge as soon as it is made
    // the tests share the bucket: each keeps its own prefix
    storage = s3.b2ThroughGate().toBuilder().keyPrefix(test.getTestMethod().orElseThrow().getName()).build();
    // two attempts per request (the default is eight): a fault reaches Iceberg and the pipeline often
    bucketIO = ObjectStorageIO.open(storage, Map.of(ObjectStorageIO.MAX_ATTEMPTS, "2"));
  }

  @AfterEach
  void close() {
    s3.gate().faults(ProviderGate.Faults.none());
    closeBucketIO();
  }

  private FeatureStore store() {
    return FeatureStore.builder().root(dir.resolve("store")).objectStorage(storage).fileIO(bucketIO)
        .clock(clock).build();
  }

  private CdcPipeline.Builder pipeline(FeatureStore store) {
    return pipeline(store, dir.resolve("wal"));
  }

  /** The pipeline of every case (and of the killed child): a short shard lease, so a dead holder's expires soon. */
  static CdcPipeline.Builder pipeline(FeatureStore store, Path wal) {
    return CdcPipeline.builder(store).changeLog(LOG).currentState(STATE).shardId("flaky")
        .writeAheadLog(wal).batchSize(16).flushInterval(Duration.ofMillis(300))
        .commitRetries(2).retryBackoff(Duration.ofMillis(5)).shardLease(Duration.ofSeconds(1)).maintenance(eager());
  }

  static MaintenancePolicy eager() {
    return MaintenancePolicy.builder().checkEvery(Duration.ofMillis(200)).leaseDuration(Duration.ofSeconds(10))
        .compactWhenSmallFilesAtLeast(4).compactWhenDeleteFilesAtLeast(4).rewriteManifestsWhenAtLeast(4)
        .expireWhenSnapshotsAtLeast(8).retainLastSnapshots(3).maxSnapshotAge(Duration.ofMinutes(1))
        .metadataVersionsToKeep(4).removeOrphans(false).build();
  }

  /** One small batch of deterministic inserts, updates and deletes; the model follows. */
  private long writeBatch(CdcPipeline cdc) {
    long seq = 0;
    int n = 1 + ops.nextInt(4);
    for (int i = 0; i < n; i++) {
      String doc = "d" + ops.nextInt(DOCS);
      String key = "users/" + doc;
      int roll = ops.nextInt(10);
      if (roll < 2 && model.containsKey(key)) {
        seq = cdc.delete("users", doc);
        model.remove(key);
      } else {
        Map<String, Object> after = new LinkedHashMap<>();
        after.put("id", doc);
        after.put("v", ops.nextInt(1000));
        seq = model.containsKey(key) ? cdc.update("users", doc, after) : cdc.insert("users", doc, after);
        model.put(key, seq);
      }
    }
    return seq;
  }

  /** Flushes; a failure must be typed (the entries stay pending and land later). */
  private void flushTolerating(CdcPipeline cdc) {
    try {
      cdc.flush();
    } catch (FeatureStoreException e) {
      failedFlushes++;
    } catch (RuntimeException e) {
      untyped.add(e);
    }
  }

  /** Writes {@code batches} small batches, flushing after every {@code flushEvery}-th; returns the last sequence id. */
  private long stream(CdcPipeline cdc, int batches, int flushEvery) {
    long last = cdc.lastAcceptedSequence();
    for (int batch = 0; batch < batches; batch++) {
      last = writeBatch(cdc);
      if (batch % flushEvery == flushEvery - 1) {
        flushTolerating(cdc);
      }
    }
    return last;
  }

  @Test
  void streamOverFlakyStorage_withMaintenance_landsEveryEntryOnce() throws Exception {
    Set<Thread> threadsBefore = libraryThreads();
    long last;
    List<BackgroundMaintenanceStatus> statuses;
    try (FeatureStore store = store()) {
      try (CdcPipeline cdc = pipeline(store).build()) {
        s3.gate().faults(FAULTS);
        last = stream(cdc, 45, 3); // some 15 flushes of a few entries: usually a few fail
        // one flush that fails for sure, whatever the random faults did: every object write refused
        s3.gate().failHard(r -> r.method().equals("PUT"));
        last = writeBatch(cdc);
        assertThatThrownBy(cdc::flush).isInstanceOf(StorageException.class);
        s3.gate().failHard(r -> false);
        int injected = s3.gate().injectedFaults();
        s3.gate().faults(ProviderGate.Faults.none());
        cdc.flush();
        assertThat(cdc.metrics().pending()).isZero();
        assertThat(injected).as("faults injected").isGreaterThan(50);
        assertThat(untyped).as("untyped failures of flush").isEmpty();
        // maintenance went on through the faults (how many rounds failed depends on the threads'
        // timing, so it is only reported); with the faults off it expires and compacts
        Await.awaitUntil("maintenance expired and compacted", Duration.ofSeconds(60), () -> {
          List<BackgroundMaintenanceStatus> now = cdc.maintenance();
          return now.stream().mapToLong(BackgroundMaintenanceStatus::snapshotsExpired).sum() > 0
              && now.stream().mapToLong(BackgroundMaintenanceStatus::dataFilesCompacted).sum() > 0;
        });
        statuses = cdc.maintenance();
        System.out.printf("CdcFlakyStorageTest: %d flushes failed under random faults, %d maintenance rounds failed, %d faults%n",
            failedFlushes, statuses.stream().mapToLong(BackgroundMaintenanceStatus::roundsFailed).sum(), injected);
      }
      assertThat(statuses).allMatch(s -> s.running() && s.rounds() > 0);
      assertExactlyOnce(store, last);
      removeOrphansAndCheck(store, last);
    }
    closeBucketIO();
    assertNoNewLibraryThreads(threadsBefore);
  }

  @Test
  void pipelineClosedAndReopenedDuringFaults_landsEveryEntryOnce() throws Exception {
    Set<Thread> threadsBefore = libraryThreads();
    long last = 0;
    int failedOpens = 0;
    try (FeatureStore store = store()) {
      s3.gate().faults(FAULTS);
      for (int round = 0; round < 3; round++) {
        CdcPipeline cdc = null;
        while (cdc == null) { // opening reads the tables' marks: it may fail, typed, and leave nothing open
          try {
            cdc = pipeline(store).build();
          } catch (FeatureStoreException e) {
            failedOpens++;
            assertThat(failedOpens).as("opens failed in a row: " + e).isLessThan(30);
          }
        }
        assertThat(cdc.lastAcceptedSequence()).as("sequences go on across reopens").isEqualTo(last);
        if (round == 2) {
          assertThat(cdc.recoveredEntries()).as("the entries the failed close left in the log").isPositive();
        }
        last = stream(cdc, 10, 5);
        if (round == 1) {
          // a close whose final flush fails for sure: every object write refused
          s3.gate().failHard(r -> r.method().equals("PUT"));
          last = writeBatch(cdc);
          assertThatThrownBy(cdc::close).isInstanceOf(StorageException.class)
              .hasMessageContaining("the entries stay in the write-ahead log");
          s3.gate().failHard(r -> false);
          continue;
        }
        try {
          cdc.close(); // its final flush may fail: the entries stay in the log for the next open
        } catch (FeatureStoreException e) {
          // typed: the entries stay in the log
        } catch (RuntimeException e) {
          untyped.add(e);
        }
      }
      s3.gate().faults(ProviderGate.Faults.none());
      try (CdcPipeline cdc = pipeline(store).build()) {
        cdc.flush();
        assertThat(cdc.metrics().pending()).isZero();
      }
      assertThat(untyped).as("untyped failures of flush and close").isEmpty();
      assertThat(s3.gate().injectedFaults()).as("faults injected").isGreaterThan(50);
      assertExactlyOnce(store, last);
      removeOrphansAndCheck(store, last);
    }
    closeBucketIO();
    assertNoNewLibraryThreads(threadsBefore);
  }

  /**
   * A child JVM streaming under the faults is killed with SIGKILL after 30 acknowledgements; the
   * pipeline reopened here (still under the faults: its open retried until the dead child's lease
   * expired and the storage let it read the tables) lands the rest: the change log holds 1..M
   * once, M the last acknowledged or the one in flight, and the current state equals the model.
   */
  @Test
  void childKilledDuringFaults_reopenedUnderFaults_landsEveryAcknowledgedEntryOnce() throws Exception {
    s3.gate().faults(FAULTS);
    List<Long> acked;
    try (ChildJvm child = ChildJvm.start(CdcFlakyStorageChild.class, dir, dir.resolve("store").toString(),
        dir.resolve("wal").toString(), s3.gate().endpoint(), storage.keyPrefix())) {
      child.awaitNth("ACK ", 30, Duration.ofSeconds(90));
      child.kill(); // SIGKILL on Linux
      acked = child.lines().stream().filter(l -> l.startsWith("ACK ")).map(l -> Long.parseLong(l.substring(4))).toList();
    }
    assertThat(acked).as("acknowledged before the kill").hasSizeGreaterThanOrEqualTo(30);
    long maxAcked = acked.stream().mapToLong(Long::longValue).max().orElseThrow();
    try (FeatureStore store = store()) {
      CdcPipeline cdc = null;
      for (int attempt = 0; cdc == null; attempt++) {
        try {
          cdc = pipeline(store).build();
        } catch (FeatureStoreException e) { // the dead child's shard lease, or the storage
          assertThat(attempt).as("opens failed in a row: " + e).isLessThan(100);
          Thread.sleep(100);
        }
      }
      try {
        s3.gate().faults(ProviderGate.Faults.none());
        cdc.flush();
        assertThat(cdc.metrics().pending()).isZero();
      } finally {
        cdc.close();
      }
      List<Long> seqs = new ArrayList<>(CdcTestSupport.sequences(store, LOG));
      Collections.sort(seqs);
      long last = seqs.isEmpty() ? 0 : seqs.get(seqs.size() - 1);
      assertThat(last).as("at most the entry in flight beyond the acknowledged").isBetween(maxAcked, maxAcked + 1);
      assertThat(seqs).as("the change log holds every sequence once")
          .containsExactlyElementsOf(LongStream.rangeClosed(1, last).boxed().toList());
      Map<String, Long> state = new TreeMap<>();
      CdcTestSupport.state(store, STATE).forEach((k, r) -> state.put(k, ((Number) r.getField("k")).longValue()));
      assertThat(state).as("the current state").isEqualTo(CdcCrashChild.model(last));
    }
  }

  /**
   * A killed batch's marker is checked against the table's snapshots on open; storage failing
   * then fails the open with a StorageException (the SDK's own exception reached the caller
   * before), keeps the marker, and leaves the shard free for the next open, which cleans up.
   */
  @Test
  void openReadingAKilledBatchsMarker_storageFailing_failsTyped_andTheNextOpenCleansUp() throws Exception {
    Set<Thread> threadsBefore = libraryThreads();
    try (FeatureStore store = store()) {
      long last;
      try (CdcPipeline cdc = pipeline(store).withoutMaintenance().build()) {
        last = stream(cdc, 4, 5);
        cdc.flush();
      }
      Path marker = dir.resolve("wal").resolve("flaky").resolve("pending-1.files");
      String orphan = store.table(LOG).location() + "/data/left-by-a-killed-batch.parquet";
      try (var out = bucketIO.newOutputFile(orphan).create()) {
        out.write(1);
      }
      Files.writeString(marker, "table\t" + LOG + "\n" + orphan + "\n");
      // every manifest list read fails: the open cannot tell which of the marker's files were committed
      s3.gate().failHard(r -> r.method().equals("GET") && r.target().contains("/snap-"));

      assertThatThrownBy(() -> pipeline(store).withoutMaintenance().build())
          .isInstanceOf(StorageException.class)
          .hasMessageStartingWith("Cannot open CDC pipeline of shard flaky: ");
      assertThat(marker).exists();

      s3.gate().reset();
      try (CdcPipeline cdc = pipeline(store).withoutMaintenance().build()) {
        assertThat(cdc.lastAcceptedSequence()).isEqualTo(last);
      }
      assertThat(marker).doesNotExist();
      assertThat(s3.keys(key(orphan))).isEmpty();
      assertExactlyOnce(store, last);
    }
    closeBucketIO();
    assertNoNewLibraryThreads(threadsBefore);
  }

  private void closeBucketIO() {
    if (bucketIO != null) {
      bucketIO.close();
      bucketIO = null;
    }
  }

  private void assertExactlyOnce(FeatureStore store, long last) {
    List<Long> seqs = new ArrayList<>(CdcTestSupport.sequences(store, LOG));
    Collections.sort(seqs);
    assertThat(seqs).as("the change log holds every sequence once")
        .containsExactlyElementsOf(LongStream.rangeClosed(1, last).boxed().toList());
    Map<String, Long> state = new TreeMap<>();
    for (Map.Entry<String, Record> e : CdcTestSupport.state(store, STATE).entrySet()) { // fails on a duplicate key
      state.put(e.getKey(), (Long) e.getValue().getField("_seq"));
    }
    assertThat(state).as("the current state").isEqualTo(model);
  }

  /**
   * Orphan removal with a zero window (no writer runs now) leaves exactly the files the tables'
   * snapshots reference, and the tables read the same after it.
   */
  private void removeOrphansAndCheck(FeatureStore store, long last) {
    for (TableId id : List.of(LOG, STATE)) {
      store.table(id).maintenance().removeOrphanFiles().olderThan(Duration.ZERO).unsafe().execute();
      Table table = store.table(id).unwrap(Table.class);
      table.refresh();
      Set<String> referenced = referencedFiles(table);
      String prefix = key(table.location()) + "/data/";
      List<String> listed = s3.keys(prefix);
      assertThat(new HashSet<>(listed)).as(id + ": data files in the bucket after orphan removal")
          .isEqualTo(referenced.stream().filter(k -> k.startsWith(prefix)).collect(java.util.stream.Collectors.toSet()));
    }
    assertExactlyOnce(store, last);
  }

  /**
   * Every data and delete file a live manifest entry of some snapshot names: what a snapshot may
   * read. A deletion vector left pointing at a data file a compaction removed counts too (it
   * applies to no row; the next compaction drops it, see DanglingDeletes in core).
   */
  private static Set<String> referencedFiles(Table table) {
    Set<String> referenced = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        try (CloseableIterable<? extends ContentFile<?>> files = manifest.content() == ManifestContent.DATA
            ? ManifestFiles.read(manifest, table.io(), table.specs())
            : ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
          files.forEach(f -> referenced.add(key(f.location())));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return referenced;
  }

  /** The object key of an {@code s3://bucket/key} location. */
  private static String key(String location) {
    String rest = location.substring(location.indexOf("://") + 3);
    return rest.substring(rest.indexOf('/') + 1);
  }

  /** The library's threads alive now. */
  private static Set<Thread> libraryThreads() {
    Set<Thread> threads = new HashSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && t.getName().startsWith("featurestore-")) {
        threads.add(t);
      }
    }
    return threads;
  }

  /** No thread the library started since {@code before} is left once the pipeline and the store are closed. */
  private static void assertNoNewLibraryThreads(Set<Thread> before) throws InterruptedException {
    List<String> alive = List.of();
    for (int i = 0; i < 100; i++) { // a bound for threads that end right after close, not a timing assertion
      alive = libraryThreads().stream().filter(t -> !before.contains(t)).map(Thread::getName).toList();
      if (alive.isEmpty()) {
        return;
      }
      Thread.sleep(50);
    }
    assertThat(alive).as("library threads after the pipeline and the store closed").isEmpty();
  }
}
