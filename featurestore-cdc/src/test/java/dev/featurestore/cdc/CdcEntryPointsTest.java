package dev.featurestore.cdc;

import static dev.featurestore.core.EntryPointWalk.bad;
import static dev.featurestore.core.EntryPointWalk.nul;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreException;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.TableId;
import dev.featurestore.core.EntryPointWalk;
import dev.featurestore.core.EntryPointWalk.Row;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CDC entry points with bad arguments, as core's {@code PublicEntryPointsTest} walks its own (the
 * same row kinds; core's test-jar is not on this module's reactor test path): the pipeline builder, the
 * entry builder and the calls of an open pipeline all fail typed with a {@code Cannot ...} message,
 * and a refused build leaves no table behind.
 */
class CdcEntryPointsTest {
  @TempDir static Path dir;
  static FeatureStore store;
  static CdcPipeline pipeline;

  static final TableId LOG = TableId.of("walk", "log");

  @BeforeAll
  static void open() {
    store = FeatureStore.openLocal(dir.resolve("store"));
    pipeline = CdcPipeline.builder(store).changeLog(LOG).shardId("w").writeAheadLog(dir.resolve("wal")).build();
  }

  @AfterAll
  static void close() {
    pipeline.close();
    store.close();
  }

  static CdcPipeline.Builder builder() {
    return CdcPipeline.builder(store);
  }

  static List<Row> rows() {
    Path wal = dir.resolve("wal2");
    TableId other = TableId.of("walk", "other");
    List<Row> rows = new ArrayList<>();
    rows.add(bad("shard id with slash", InvalidArgumentException.class, () -> builder().shardId("a/b")));
    rows.add(bad("shard id empty", InvalidArgumentException.class, () -> builder().shardId("")));
    rows.add(bad("batch size 0", InvalidArgumentException.class, () -> builder().batchSize(0)));
    rows.add(bad("flush interval negative", InvalidArgumentException.class, () -> builder().flushInterval(Duration.ofMillis(-1))));
    rows.add(bad("commit retries 0", InvalidArgumentException.class, () -> builder().commitRetries(0)));
    rows.add(bad("retry backoff negative", InvalidArgumentException.class, () -> builder().retryBackoff(Duration.ofMillis(-1))));
    rows.add(bad("pending bound 0", InvalidArgumentException.class, () -> builder().backpressure(Backpressure.BLOCK, 0)));
    rows.add(bad("buckets 0", InvalidArgumentException.class, () -> builder().currentStateBuckets(0)));
    rows.add(bad("typed columns -1", InvalidArgumentException.class, () -> builder().currentStateTypedColumns(-1)));
    rows.add(bad("lease 1 ms", InvalidArgumentException.class, () -> builder().shardLease(Duration.ofMillis(1))));
    rows.add(nul("builder null store", () -> CdcPipeline.builder(null)));
    rows.add(nul("changeLog null", () -> builder().changeLog(null)));
    rows.add(nul("currentState null", () -> builder().currentState(null)));
    rows.add(nul("shardId null", () -> builder().shardId(null)));
    rows.add(nul("flushInterval null", () -> builder().flushInterval(null)));
    rows.add(nul("compression null", () -> builder().compression(null)));
    rows.add(nul("tablesLocation null", () -> builder().tablesLocation(null)));
    rows.add(bad("tablesLocation dot dot", InvalidArgumentException.class, () -> builder().tablesLocation("a/../b")));
    rows.add(bad("tablesLocation blank", InvalidArgumentException.class, () -> builder().tablesLocation("")));
    rows.add(nul("writeAheadLog null", () -> builder().writeAheadLog(null)));
    rows.add(nul("fsync null", () -> builder().fsync(null)));
    rows.add(nul("retryBackoff null", () -> builder().retryBackoff(null)));
    rows.add(nul("backpressure null", () -> builder().backpressure(null, 10)));
    rows.add(nul("walRecovery null", () -> builder().walRecovery(null)));
    rows.add(nul("shardLease null", () -> builder().shardLease(null)));
    rows.add(nul("status null store", () -> CdcStatus.read(null, LOG)));
    rows.add(nul("status null table", () -> CdcStatus.read(store, null)));
    rows.add(nul("status null log directory", () -> CdcStatus.read(store, LOG, null)));
    rows.add(onStore("status of a missing log directory", dev.featurestore.NotFoundException.class,
        () -> CdcStatus.read(store, LOG, dir.resolve("no-such-wal"))));
    rows.add(nul("entry operation null", () -> CdcEntry.builder().operation((CdcOperation) null)));
    rows.add(bad("entry operation name null", InvalidArgumentException.class, () -> CdcEntry.builder().operation((String) null)));
    rows.add(nul("entry shardId null", () -> CdcEntry.builder().shardId(null)));
    rows.add(bad("entry collection null", InvalidArgumentException.class, () -> CdcEntry.builder().sequenceId(1).operation(CdcOperation.INSERT)
        .collection(null).docId("d").after(Map.of("a", 1)).build()));
    rows.add(bad("entry docId null", InvalidArgumentException.class, () -> CdcEntry.builder().sequenceId(1).operation(CdcOperation.INSERT)
        .collection("c").docId(null).after(Map.of("a", 1)).build()));
    rows.add(onTable("append null", InvalidArgumentException.class, t -> pipeline.append(null)));
    rows.add(onTable("insert null collection", InvalidArgumentException.class, t -> pipeline.insert(null, "d1", Map.of("a", 1))));
    rows.add(onTable("insert null doc id", InvalidArgumentException.class, t -> pipeline.insert("c", null, Map.of("a", 1))));
    rows.add(onTable("delete null doc id", InvalidArgumentException.class, t -> pipeline.delete("c", null)));
    rows.add(onTable("createEntry null operation", InvalidArgumentException.class,
        t -> pipeline.createEntry((String) null, "c", "d1", null, Map.of("a", 1))));
    rows.add(onStore("build without table", InvalidArgumentException.class,
        () -> builder().writeAheadLog(wal).build()));
    rows.add(onStore("build without log directory", InvalidArgumentException.class,
        () -> builder().changeLog(other).build()));
    rows.add(onStore("build one table for both modes", InvalidArgumentException.class,
        () -> builder().changeLog(other).currentState(other).writeAheadLog(wal).build()));
    rows.add(onStore("build pending below batch", InvalidArgumentException.class,
        () -> builder().changeLog(other).writeAheadLog(wal).batchSize(100).backpressure(Backpressure.BLOCK, 10).build()));
    rows.add(onStore("build second pipeline on the open shard and log", FeatureStoreException.class,
        () -> builder().changeLog(LOG).shardId("w").writeAheadLog(dir.resolve("wal")).build()));
    rows.add(bad("entry negative sequence", InvalidArgumentException.class, () -> CdcEntry.builder().sequenceId(-1)));
    rows.add(bad("entry unknown operation", InvalidArgumentException.class, () -> CdcEntry.builder().operation("upsert")));
    rows.add(bad("entry without doc id", InvalidArgumentException.class,
        () -> CdcEntry.builder().sequenceId(1).operation(CdcOperation.INSERT).collection("c").after(Map.of("a", 1)).build()));
    rows.add(onTable("insert without after image", InvalidArgumentException.class,
        t -> pipeline.insert("c", "d1", null)));
    rows.add(onTable("update without before or after", InvalidArgumentException.class,
        t -> pipeline.update("c", "d1", null, null)));
    rows.add(onTable("blank collection", InvalidArgumentException.class,
        t -> pipeline.insert(" ", "d1", Map.of("a", 1))));
    rows.add(onTable("unknown operation", InvalidArgumentException.class,
        t -> pipeline.createEntry("merge", "c", "d1", null, Map.of("a", 1))));
    rows.add(onTable("entry for another shard", InvalidArgumentException.class,
        t -> pipeline.append(CdcEntry.builder().sequenceId(1).operation(CdcOperation.INSERT).collection("c").docId("d")
            .shardId("other").after(Map.of("a", 1)).build())));
    rows.add(bad("insert after close", InvalidStateException.class, () -> {
      CdcPipeline closed = builder().changeLog(LOG).shardId("closed").writeAheadLog(dir.resolve("wal3")).build();
      closed.close();
      closed.insert("c", "d1", Map.of("a", 1));
    }));
    return rows;
  }

  @TestFactory
  Stream<DynamicTest> everyEntryPoint_failsTypedWithACannotMessage() {
    return EntryPointWalk.tests(rows());
  }

  private static Row onStore(String name, Class<? extends FeatureStoreException> type, Executable call) {
    return EntryPointWalk.onStore(name, type, store, call);
  }

  private static Row onTable(String name, Class<? extends FeatureStoreException> type, Consumer<FeatureTable> call) {
    return EntryPointWalk.onTable(name, type, store, LOG, call);
  }
}
