package dev.featurestore.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.AlreadyExistsException;
import dev.featurestore.BloomFilter;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreException;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidDataException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.ListOptions;
import dev.featurestore.MaintenancePolicy;
import dev.featurestore.NotFoundException;
import dev.featurestore.ObjectBrowser;
import dev.featurestore.ObjectStorage;
import dev.featurestore.PartitionSpecBuilder;
import dev.featurestore.QueryResult;
import dev.featurestore.ReadVersion;
import dev.featurestore.SnapshotNotFoundException;
import dev.featurestore.StorageProvider;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.TableNotFoundException;
import dev.featurestore.ValidationException;
import dev.featurestore.core.EntryPointWalk.Row;
import dev.featurestore.core.storage.s3.S3TestServer;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Walks the public entry points of the api and core with bad arguments: every call must fail with
 * a {@link FeatureStoreException} subtype whose message reads {@code Cannot ...} on one line, and
 * a call on a table must leave it as it was (same current snapshot, schema, spec, properties and
 * refs). One row per call; a new entry point is one line in {@link #rows()}.
 *
 * <p>The row kinds are in {@link EntryPointWalk}: {@code null} arguments throw
 * {@link InvalidArgumentException} naming the parameter ({@code Cannot <verb> <object>: <name> is
 * null: null}, the documented contract); gap rows are known untyped errors in code another change owns,
 * skipped with the reason while raw.
 */
class PublicEntryPointsTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir static Path root;
  @TempDir static Path s3root;

  static FeatureStore store;
  static FeatureTable table;
  static FeatureStore s3store;
  static FeatureTable s3table;
  static ObjectBrowser objects;
  static long first;

  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "ts", Types.TimestampType.withZone()),
      Types.NestedField.optional(3, "name", Types.StringType.get()),
      Types.NestedField.optional(4, "score", Types.DoubleType.get()),
      Types.NestedField.optional(5, "s", Types.StructType.of(
          Types.NestedField.optional(6, "a", Types.IntegerType.get()),
          Types.NestedField.optional(7, "b", Types.StringType.get()))));

  @BeforeAll
  static void open() {
    store = FeatureStore.openLocal(root);
    table = store.createTable(TableDefinition.builder("walk.t", SCHEMA).bloomFilter("name", 100).build());
    table.append(List.of(row(1, "a"), row(2, "b")));
    first = table.snapshots().current().orElseThrow().snapshotId();
    table.append(List.of(row(3, "c")));
    table.snapshots().createTag("v1", first);
    s3store = FeatureStore.builder().root(s3root).objectStorage(s3.b2ThroughGate()).build();
    s3table = s3store.createTable(TableDefinition.builder("walk.s3", SCHEMA).build());
    s3table.append(List.of(row(1, "a")));
    objects = s3store.objects();
  }

  @AfterAll
  static void close() {
    store.close();
    s3store.close();
  }

  static Map<String, Object> row(long id, String name) {
    return Map.of("id", id, "ts", Instant.parse("2026-01-01T00:00:00Z").plusSeconds(id), "name", name, "score", 0.5);
  }

  // ---- the rows: one per entry point and bad argument

  static List<Row> rows() {
    List<Row> rows = new ArrayList<>();
    // TableId: construction and parse
    rows.add(bad("TableId dot in a part", InvalidArgumentException.class, () -> TableId.of("a.b", "c")));
    rows.add(bad("TableId empty namespace", InvalidArgumentException.class, () -> TableId.of("", "c")));
    rows.add(bad("TableId 300 chars", InvalidArgumentException.class, () -> TableId.of("ns", "x".repeat(300))));
    rows.add(bad("TableId slash", InvalidArgumentException.class, () -> TableId.parse("ns/x.y")));
    rows.add(bad("TableId ..", InvalidArgumentException.class, () -> TableId.parse("a..b")));
    rows.add(bad("TableId NUL", InvalidArgumentException.class, () -> TableId.of("ns", "a\0b")));
    rows.add(bad("TableId emoji", InvalidArgumentException.class, () -> TableId.of("ns", "feat\uD83D\uDE00")));
    rows.add(bad("TableId whitespace only", InvalidArgumentException.class, () -> TableId.of("ns", "   ")));
    rows.add(bad("TableId parse no dot", InvalidArgumentException.class, () -> TableId.parse("nodot")));
    rows.add(bad("TableId parse three parts", InvalidArgumentException.class, () -> TableId.parse("a.b.c")));
    rows.add(bad("TableId parse empty", InvalidArgumentException.class, () -> TableId.parse("")));
    rows.add(nul("TableId null name", () -> TableId.of("ns", null)));

    // FeatureStore
    rows.add(bad("store.table bad name", InvalidArgumentException.class, () -> store.table("walk.t/x")));
    rows.add(bad("store.table missing", TableNotFoundException.class, () -> store.table("walk.missing")));
    rows.add(onStore("store.createTable existing", AlreadyExistsException.class,
        () -> store.createTable(TableDefinition.builder("walk.t", SCHEMA).build())));
    rows.add(bad("store.objects on local disk", ValidationException.class, () -> store.objects()));
    rows.add(bad("store.unwrap unknown type", () -> store.unwrap(StringBuilder.class)));
    rows.add(bad("store.openReadOnly blank", InvalidArgumentException.class, () -> store.openReadOnly("  ")));
    rows.add(bad("store.openReadOnly NUL", InvalidArgumentException.class, () -> store.openReadOnly("x\0.metadata.json")));
    rows.add(bad("store.openReadOnly missing", NotFoundException.class,
        () -> store.openReadOnly(root.resolve("nope/00001-a.metadata.json").toString())));
    rows.add(bad("s3store.openReadOnly key ..", InvalidArgumentException.class, () -> s3store.openReadOnly("../x.metadata.json")));
    rows.add(bad("MetadataTable.fromName unknown", InvalidArgumentException.class,
        () -> dev.featurestore.MetadataTable.fromName("files'; DROP TABLE x; --")));
    rows.add(bad("config actor blank", InvalidArgumentException.class, () -> FeatureStore.builder().actor(" ")));
    rows.add(bad("config actor newline", InvalidArgumentException.class, () -> FeatureStore.builder().actor("a\nb")));
    rows.add(nul("store.table null", () -> store.table((TableId) null)));

    // TableDefinition and PartitionSpecBuilder
    rows.add(onStore("create with partition on unknown column", InvalidArgumentException.class, () -> store.createTable(
        TableDefinition.builder("walk.x", SCHEMA).partitionBy(s -> PartitionSpecBuilder.of(s).identity("nope").build()).build())));
    rows.add(onStore("create with bad location", () -> store.createTable(
        TableDefinition.builder("walk.x", SCHEMA).location("ftp://elsewhere/x").build())));
    rows.add(bad("definition bloom unknown column", () -> TableDefinition.builder("walk.x", SCHEMA).bloomFilter("nope", 10)));
    rows.add(bad("definition bloom negative ndv", () -> TableDefinition.builder("walk.x", SCHEMA).bloomFilter("name", -1)));
    rows.add(bad("definition format version 9", () -> TableDefinition.builder("walk.x", SCHEMA).formatVersion(9)));
    rows.add(bad("definition bad id", () -> TableDefinition.builder("walk", SCHEMA)));
    rows.add(bad("partition unknown column", InvalidArgumentException.class, () -> PartitionSpecBuilder.of(SCHEMA).identity("nope")));
    rows.add(bad("partition day on long", InvalidArgumentException.class, () -> PartitionSpecBuilder.of(SCHEMA).day("id")));
    rows.add(bad("partition truncate on double", InvalidArgumentException.class,
        () -> PartitionSpecBuilder.of(SCHEMA).truncate("score", 4)));
    rows.add(bad("partition bucket 0", InvalidArgumentException.class, () -> PartitionSpecBuilder.of(SCHEMA).bucket("id", 0)));
    rows.add(bad("partition truncate -1", InvalidArgumentException.class, () -> PartitionSpecBuilder.of(SCHEMA).truncate("name", -1)));
    rows.add(bad("partition blank name", InvalidArgumentException.class, () -> PartitionSpecBuilder.of(SCHEMA).identity("id", " ")));
    rows.add(bad("partition duplicate name", InvalidArgumentException.class,
        () -> PartitionSpecBuilder.of(SCHEMA).identity("id").bucket("name", 4, "id")));
    rows.add(bad("partition struct column", InvalidArgumentException.class, () -> PartitionSpecBuilder.of(SCHEMA).identity("s")));
    rows.add(bad("partition redundant time transform (Iceberg's check)", InvalidArgumentException.class,
        () -> PartitionSpecBuilder.of(SCHEMA).day("ts").hour("ts")));

    // BloomFilter
    rows.add(bad("bloom create negative items", InvalidArgumentException.class, () -> BloomFilter.create(-1, 0.01)));
    rows.add(bad("bloom create fpp 0", InvalidArgumentException.class, () -> BloomFilter.create(10, 0.0)));
    rows.add(bad("bloom create fpp NaN", InvalidArgumentException.class, () -> BloomFilter.create(10, Double.NaN)));
    rows.add(bad("bloom ofSize too big", InvalidArgumentException.class, () -> BloomFilter.ofSize(Integer.MAX_VALUE)));
    rows.add(bad("bloom fromBytes 33", InvalidArgumentException.class, () -> BloomFilter.fromBytes(new byte[33])));
    rows.add(bad("bloom expectedFpp size 8", InvalidArgumentException.class, () -> BloomFilter.expectedFpp(8, 1)));
    rows.add(bad("bloom merge sizes differ", InvalidArgumentException.class,
        () -> BloomFilter.ofSize(32).merge(BloomFilter.ofSize(64))));

    // MaintenancePolicy and ListOptions
    rows.add(bad("policy retain 0", InvalidArgumentException.class, () -> MaintenancePolicy.builder().retainLastSnapshots(0)));
    rows.add(bad("policy negative age", InvalidArgumentException.class,
        () -> MaintenancePolicy.builder().maxSnapshotAge(Duration.ofSeconds(-1))));
    rows.add(bad("policy orphan window 10s", InvalidArgumentException.class,
        () -> MaintenancePolicy.builder().orphanSafetyWindow(Duration.ofSeconds(10))));
    rows.add(bad("policy check every 0", InvalidArgumentException.class,
        () -> MaintenancePolicy.builder().checkEvery(Duration.ZERO)));
    rows.add(bad("policy orphans every 0", InvalidArgumentException.class,
        () -> MaintenancePolicy.builder().removeOrphansEvery(Duration.ZERO)));
    rows.add(bad("policy metadata versions 0", InvalidArgumentException.class,
        () -> MaintenancePolicy.builder().metadataVersionsToKeep(0)));
    rows.add(bad("policy lease 50ms", InvalidArgumentException.class,
        () -> MaintenancePolicy.builder().leaseDuration(Duration.ofMillis(50))));
    rows.add(bad("policy lease not above check", InvalidArgumentException.class,
        () -> MaintenancePolicy.builder().checkEvery(Duration.ofMinutes(5)).build()));
    rows.add(bad("list page size 0", InvalidArgumentException.class, () -> ListOptions.prefix("").pageSize(0)));
    rows.add(bad("list page size 1001", InvalidArgumentException.class, () -> ListOptions.prefix("").pageSize(1001)));
    rows.add(bad("list empty delimiter", InvalidArgumentException.class, () -> ListOptions.prefix("").delimiter("")));

    // ObjectStorage builder
    rows.add(bad("storage bucket too short", InvalidArgumentException.class, () -> ObjectStorage.builder(StorageProvider.B2).bucket("x")));
    rows.add(bad("storage bad region", InvalidArgumentException.class,
        () -> ObjectStorage.builder(StorageProvider.B2).region("US WEST")));
    rows.add(bad("storage blank key id", InvalidArgumentException.class,
        () -> ObjectStorage.builder(StorageProvider.B2).credentials(" ", "k")));
    rows.add(bad("storage key prefix ..", InvalidArgumentException.class,
        () -> ObjectStorage.builder(StorageProvider.B2).keyPrefix("../x")));
    rows.add(bad("storage key prefix NUL", InvalidArgumentException.class,
        () -> ObjectStorage.builder(StorageProvider.B2).keyPrefix("a\0b")));
    rows.add(bad("storage build without bucket", ValidationException.class, () -> ObjectStorage.builder(StorageProvider.B2).build()));
    rows.add(bad("storage B2 without region", ValidationException.class,
        () -> ObjectStorage.builder(StorageProvider.B2).bucket("my-bucket").credentials("k", "s").build()));
    rows.add(bad("storage from empty environment", ValidationException.class, () -> ObjectStorage.fromEnvironment(Map.of())));
    rows.add(bad("storage endpoint ftp", InvalidArgumentException.class,
        () -> ObjectStorage.builder(StorageProvider.B2).endpoint("ftp://host")));

    // FeatureStoreConfig.Builder
    rows.add(bad("config without root", InvalidStateException.class, () -> FeatureStore.builder().config()));
    rows.add(bad("config cold cache 0", InvalidArgumentException.class, () -> FeatureStore.builder().coldCache(root, 0)));
    rows.add(bad("config REST thrift", InvalidArgumentException.class, () -> FeatureStore.builder().restCatalog("thrift://h:1")));
    rows.add(bad("config JDBC not jdbc", InvalidArgumentException.class,
        () -> FeatureStore.builder().jdbcCatalog("postgres://h/db", "u", "p")));
    rows.add(bad("config busy timeout negative", InvalidArgumentException.class,
        () -> FeatureStore.builder().busyTimeout(Duration.ofSeconds(-1))));
    rows.add(bad("config commit retries -1", InvalidArgumentException.class, () -> FeatureStore.builder().commitRetries(-1)));
    rows.add(bad("config format version 9", InvalidArgumentException.class, () -> FeatureStore.builder().defaultFormatVersion(9)));
    rows.add(bad("config blank warehouse", InvalidArgumentException.class, () -> FeatureStore.builder().warehouseLocation(" ")));

    // Ingest
    rows.add(onTable("ingest unknown column", InvalidDataException.class, t -> t.append(List.of(Map.of("id", 9L, "nope", 1)))));
    rows.add(onTable("ingest wrong type", InvalidDataException.class, t -> t.append(List.of(Map.of("id", "abc")))));
    rows.add(onTable("ingest missing required", InvalidDataException.class, t -> t.append(List.of(Map.of("name", "x")))));
    rows.add(onTable("ingest negative synthetic", InvalidArgumentException.class, t -> t.ingest().synthetic(-1, 1)));
    rows.add(onTable("ingest listener every 0", InvalidArgumentException.class, t -> t.ingest().listener(p -> { }, 0)));
    rows.add(onTable("ingest reserved property", InvalidArgumentException.class,
        t -> t.ingest().snapshotProperty("featurestore.ingest.id", "x")));
    rows.add(onTable("ingest blank branch", InvalidArgumentException.class, t -> t.ingest().toBranch(" ")));
    rows.add(onTable("ingest no source", InvalidStateException.class, t -> t.ingest().commit()));
    rows.add(onTable("ingest missing file", NotFoundException.class, t -> t.ingest().csv(root.resolve("nope.csv")).commit()));
    rows.add(onTable("ingest object on local store", t -> t.ingest().csvObject("raw/x.csv").commit()));
    rows.add(onTable("ingest object key ..", InvalidArgumentException.class, t -> t.ingest().csvObject("../x.csv")));

    // Schema evolution
    rows.add(onTable("schema add existing", t -> t.evolveSchema().addColumn("name", Types.StringType.get(), null).commit()));
    rows.add(onTable("schema rename unknown", t -> t.evolveSchema().renameColumn("nope", "x").commit()));
    rows.add(onTable("schema widen string to long", t -> t.evolveSchema().widenColumn("name", Types.LongType.get()).commit()));
    rows.add(onTable("schema drop unknown", t -> t.evolveSchema().dropColumn("nope").commit()));
    rows.add(onTable("schema optional unknown", t -> t.evolveSchema().makeOptional("nope").commit()));

    // Snapshots and refs
    rows.add(onTable("snapshot missing", SnapshotNotFoundException.class, t -> t.snapshots().snapshot(12345)));
    rows.add(onTable("snapshot as of epoch", NotFoundException.class, t -> t.snapshots().snapshotAsOf(Instant.EPOCH)));
    rows.add(onTable("rollback missing", SnapshotNotFoundException.class, t -> t.snapshots().rollbackTo(12345)));
    rows.add(onTable("set current missing", SnapshotNotFoundException.class, t -> t.snapshots().setCurrent(12345)));
    rows.add(onTable("tag blank name", t -> t.snapshots().createTag(" ", first)));
    rows.add(onTable("tag missing snapshot", t -> t.snapshots().createTag("t2", 12345)));
    rows.add(onTable("tag existing", t -> t.snapshots().createTag("v1", first)));
    rows.add(onTable("branch blank name", t -> t.snapshots().createBranch("", first)));
    rows.add(onTable("rename main", t -> t.snapshots().renameBranch("main", "x")));
    rows.add(onTable("rename to blank", t -> t.snapshots().renameBranch("v1", " ")));
    rows.add(onTable("remove missing tag", t -> t.snapshots().removeTag("nope")));
    rows.add(onTable("remove main", t -> t.snapshots().removeBranch("main")));
    rows.add(onTable("fast forward missing", t -> t.snapshots().fastForward("nope", "main")));
    rows.add(onTable("cherry pick missing", t -> t.snapshots().cherryPick(12345)));
    rows.add(onTable("min snapshots 0", InvalidArgumentException.class, t -> t.snapshots().setMinSnapshotsToKeep("main", 0)));
    rows.add(onTable("max snapshot age negative", InvalidArgumentException.class,
        t -> t.snapshots().setMaxSnapshotAge("main", Duration.ofSeconds(-1))));
    rows.add(onTable("max ref age zero", InvalidArgumentException.class, t -> t.snapshots().setMaxRefAge("v1", Duration.ZERO)));
    rows.add(onTable("diff missing", t -> t.snapshots().diff(12345, first)));
    rows.add(onTable("add required column below v3", ValidationException.class,
        t -> t.evolveSchema().addRequiredColumn("x", Types.LongType.get(), 1L)));
    rows.add(onTable("explain pruning of files unknown", NotFoundException.class,
        t -> t.explainPruning(Expressions.alwaysTrue(), List.of("/nope.parquet"))));
    rows.add(onTable("explain pruning of files empty", InvalidArgumentException.class,
        t -> t.explainPruning(Expressions.alwaysTrue(), List.of())));
    rows.add(onTable("read bloom filters missing", NotFoundException.class, t -> t.readBloomFilters("/nope.parquet")));
    rows.add(onTable("bloom filters unknown column", NotFoundException.class,
        t -> t.readBloomFilters(anyDataFile(t)).filters("nope")));
    rows.add(onTable("bloom filters bad key", InvalidArgumentException.class,
        t -> t.readBloomFilters(anyDataFile(t)).mightContain("id", "x")));
    rows.add(onTable("row diff missing", SnapshotNotFoundException.class, t -> t.query().diff(12345L)));
    rows.add(onTable("row diff missing ref", SnapshotNotFoundException.class, t -> t.query().diff(ReadVersion.ref("nope"))));
    rows.add(onTable("row diff unknown column", NotFoundException.class, t -> t.query().select("nope").diff(first)));

    // Queries and exports
    rows.add(onTable("query missing snapshot", SnapshotNotFoundException.class, t -> t.query().asOfSnapshot(12345).count()));
    rows.add(onTable("query missing ref", t -> t.query().atRef("nope").count()));
    rows.add(onTable("query before first snapshot", t -> t.query().asOf(Instant.EPOCH).count()));
    rows.add(onTable("query unknown column", t -> t.query().select("nope").count()));
    rows.add(onTable("query filter unknown column", t -> t.query().filter(Expressions.equal("nope", 1)).count()));
    rows.add(onTable("query filter wrong type", t -> t.query().filter(Expressions.equal("id", "abc")).count()));
    rows.add(onTable("query nested filter on partial column", InvalidArgumentException.class,
        t -> t.query().select("id", "s.a").filter(Expressions.equal("s.b", "x")).count()));
    rows.add(onTable("row unknown column", InvalidArgumentException.class, t -> {
      try (QueryResult result = t.query().execute()) {
        result.iterator().next().get("nope");
      }
    }));
    rows.add(onTable("result iterated twice", InvalidStateException.class, t -> {
      try (QueryResult result = t.query().execute()) {
        result.iterator();
        result.iterator();
      }
    }));
    rows.add(onTable("export to existing file", AlreadyExistsException.class, t -> t.query().exportParquet(EntryPointWalk.existingFile(root))));
    rows.add(onTable("export to bucket on local store", t -> t.query().exportToBucket("slice")));
    rows.add(onTable("explain pruning missing snapshot", t -> t.explainPruning(Expressions.alwaysTrue(), 12345)));
    rows.add(onTable("explain pruning unknown column", t -> t.explainPruning(Expressions.equal("nope", 1))));
    rows.add(onTable("partition path of wrong arity", t -> t.partitionPathOf(List.of(1, 2))));
    rows.add(onTable("unwrap unknown type", InvalidArgumentException.class, t -> t.unwrap(StringBuilder.class)));

    // Maintenance and tiering
    rows.add(onTable("expire nothing selected", InvalidArgumentException.class, t -> t.maintenance().expireSnapshots().execute()));
    rows.add(onTable("expire retain 0", InvalidArgumentException.class, t -> t.maintenance().expireSnapshots().retainLast(0)));
    rows.add(onTable("expire missing snapshot", t -> t.maintenance().expireSnapshots().expireSnapshotId(12345).execute()));
    rows.add(onTable("orphans negative window", InvalidArgumentException.class,
        t -> t.maintenance().removeOrphanFiles().olderThan(Duration.ofSeconds(-1))));
    rows.add(onTable("orphans window below minimum", InvalidArgumentException.class,
        t -> t.maintenance().removeOrphanFiles().olderThan(Duration.ofSeconds(10)).execute()));
    rows.add(onTable("compact target 0", InvalidArgumentException.class, t -> t.maintenance().compact().targetFileSizeBytes(0)));
    rows.add(onTable("compact threshold 0", InvalidArgumentException.class, t -> t.maintenance().compact().smallFileThresholdBytes(0)));
    rows.add(onTable("compact min inputs 0", InvalidArgumentException.class, t -> t.maintenance().compact().minInputFiles(0)));
    rows.add(onTable("compact size ratio below 1", InvalidArgumentException.class,
        t -> t.maintenance().compact().sizeTiers(0.5, 4)));
    rows.add(onTable("compact tier of 1 file", InvalidArgumentException.class, t -> t.maintenance().compact().sizeTiers(2, 1)));
    rows.add(onTable("compact filter unknown column", t -> t.maintenance().compact().filter(Expressions.equal("nope", 1)).execute()));
    rows.add(onTable("tier negative age", InvalidArgumentException.class, t -> t.tiering().olderThan(Duration.ofSeconds(-1))));
    rows.add(onTable("tier files per commit 0", InvalidArgumentException.class, t -> t.tiering().filesPerCommit(0)));
    rows.add(onTable("tier without cold storage", t -> t.tiering().olderThan(Duration.ZERO).execute()));

    // Partition evolution and bloom filters
    rows.add(onTable("evolve spec unknown column", t -> t.evolvePartitionSpec().identity("nope").commit()));
    rows.add(onTable("evolve spec bucket 0", t -> t.evolvePartitionSpec().bucket("id", 0).commit()));
    rows.add(onTable("evolve spec day on long", t -> t.evolvePartitionSpec().day("id").commit()));
    rows.add(onTable("evolve spec remove unknown", t -> t.evolvePartitionSpec().removeField("nope").commit()));
    rows.add(onTable("bloom enable unknown", t -> t.updateBloomFilters().enable("nope", 10).commit()));
    rows.add(onTable("bloom enable ndv -1", t -> t.updateBloomFilters().enable("id", -1).commit()));
    rows.add(onTable("bloom enable fpp 1.5", t -> t.updateBloomFilters().enable("id", 10, 1.5).commit()));
    rows.add(onTable("bloom disable unknown", InvalidArgumentException.class, t -> t.updateBloomFilters().disable("nope").commit()));

    // Point lookups (NaN keys: h3-nan)
    rows.add(onTable("lookup unknown key column", InvalidArgumentException.class, t -> t.lookup("nope")));
    rows.add(onTable("lookup struct key column", InvalidArgumentException.class, t -> t.lookup("s")));
    rows.add(onTable("lookup latestBy unknown", InvalidArgumentException.class, t -> t.lookup("id").latestBy("nope")));
    rows.add(onTable("lookup select nothing", InvalidArgumentException.class, t -> t.lookup("id").select()));
    rows.add(onTable("lookup no keys", InvalidArgumentException.class, t -> t.lookup("id").getAll(List.of())));
    rows.add(onTable("lookup atOrBefore without latestBy", InvalidArgumentException.class,
        t -> t.lookup("id").atOrBefore(Instant.now()).get(1L)));
    rows.add(onTable("lookup latestBy not a time", InvalidArgumentException.class,
        t -> t.lookup("id").latestBy("score").atOrBefore(Instant.now()).get(1L)));
    rows.add(onTable("lookup missing snapshot", SnapshotNotFoundException.class, t -> t.lookup("id").asOfSnapshot(12345).get(1L)));
    rows.add(onTable("lookup wrong key type", t -> t.lookup("id").get("abc")));

    // Row deletes
    rows.addAll(DeleteEntryPointRows.rows());

    // Object browser: every call with a bad key, then the call's own arguments
    for (String key : List.of("", "/abs", "../x", "a//b", "a/./b", "a\\b", "a\u0000b", "k".repeat(1025))) {
      String shown = key.length() > 20 ? key.length() + " chars" : key;
      if (!key.isEmpty()) { // an empty prefix lists everything
        rows.add(bad("objects.list " + shown, InvalidArgumentException.class, () -> objects.list(ListOptions.prefix(key + "x/"))));
        rows.add(bad("objects.listAll " + shown, InvalidArgumentException.class, () -> objects.listAll(key + "x/")));
      }
      rows.add(bad("objects.head " + shown, InvalidArgumentException.class, () -> objects.head(key)));
      rows.add(bad("objects.get " + shown, InvalidArgumentException.class, () -> objects.get(key)));
      rows.add(bad("objects.getRange " + shown, InvalidArgumentException.class, () -> objects.get(key, 0, 1)));
      rows.add(bad("objects.firstBytes " + shown, InvalidArgumentException.class, () -> objects.firstBytes(key, 1)));
      rows.add(bad("objects.preview " + shown, InvalidArgumentException.class, () -> objects.preview(key, 1)));
      rows.add(bad("objects.metadata " + shown, InvalidArgumentException.class, () -> objects.metadata(key)));
      rows.add(bad("objects.presign " + shown, InvalidArgumentException.class, () -> objects.presignedGet(key, Duration.ofHours(1))));
      rows.add(bad("objects.delete " + shown, InvalidArgumentException.class, () -> objects.delete(key, true)));
      rows.add(bad("objects.stage " + shown, InvalidArgumentException.class, () -> objects.stage(key)));
      rows.add(onS3Table("ingest object " + shown, InvalidArgumentException.class, t -> t.ingest().parquetObject(key)));
      rows.add(onS3Table("export to bucket " + shown, InvalidArgumentException.class, t -> t.query().exportToBucket(key)));
    }
    rows.add(bad("objects.stage folder name", InvalidArgumentException.class, () -> objects.stage("dir/")));
    rows.add(onS3Table("export to bucket folder name", InvalidArgumentException.class, t -> t.query().exportToBucket("dir/")));
    rows.add(bad("objects.get negative offset", InvalidArgumentException.class, () -> objects.get("raw/x", -1, 1)));
    rows.add(bad("objects.get zero length", InvalidArgumentException.class, () -> objects.get("raw/x", 0, 0)));
    rows.add(bad("objects.firstBytes 0", InvalidArgumentException.class, () -> objects.firstBytes("raw/x", 0)));
    rows.add(bad("objects.firstBytes 2 MiB", InvalidArgumentException.class, () -> objects.firstBytes("raw/x", 2 << 20)));
    rows.add(bad("objects.preview 0 rows", InvalidArgumentException.class, () -> objects.preview("raw/x.csv", 0)));
    rows.add(bad("objects.preview unknown format", ValidationException.class, () -> objects.preview("raw/x.bin", 1)));
    rows.add(bad("objects.presign zero", InvalidArgumentException.class, () -> objects.presignedGet("raw/x", Duration.ZERO)));
    rows.add(bad("objects.presign negative", InvalidArgumentException.class,
        () -> objects.presignedGet("raw/x", Duration.ofSeconds(-5))));
    rows.add(bad("objects.presign above 7 days", InvalidArgumentException.class,
        () -> objects.presignedGet("raw/x", Duration.ofDays(7).plusSeconds(1))));
    rows.add(bad("objects.delete warehouse without force", ValidationException.class, () -> objects.delete("warehouse/x")));
    rows.add(bad("objects.head missing", NotFoundException.class, () -> objects.head("raw/missing")));
    rows.add(bad("objects.stage part size 1", InvalidArgumentException.class, () -> objects.stage("x.csv").partSize(1)));
    rows.add(bad("objects.stage threshold -1", InvalidArgumentException.class, () -> objects.stage("x.csv").multipartThreshold(-1)));
    rows.add(bad("objects.stage content type newline", InvalidArgumentException.class,
        () -> objects.stage("x.csv").contentType("text/csv\n")));
    rows.add(bad("objects.stage metadata name", InvalidArgumentException.class, () -> objects.stage("x.csv").metadata("a b", "v")));
    rows.add(bad("objects.stage metadata value", InvalidArgumentException.class,
        () -> objects.stage("x.csv").metadata("a", "caf\u00e9")));
    rows.add(bad("objects.stage no source", InvalidStateException.class, () -> objects.stage("x.csv").commit()));
    rows.add(bad("objects.stage two sources", InvalidStateException.class,
        () -> objects.stage("x.csv").from(new ByteArrayInputStream(new byte[1])).from(root.resolve("x"))));
    rows.add(onS3Table("ingest missing object", NotFoundException.class, t -> t.ingest().csvObject("raw/missing.csv").commit()));

    // Null arguments: InvalidArgumentException naming the parameter, never a bare NullPointerException
    rows.add(nul("FeatureStore.open null", () -> FeatureStore.open(null)));
    rows.add(nul("config root null", () -> FeatureStore.builder().root(null)));
    rows.add(nul("config catalogFile null", () -> FeatureStore.builder().catalogFile(null)));
    rows.add(nul("config catalog null", () -> FeatureStore.builder().catalog(null)));
    rows.add(nul("config jdbc url null", () -> FeatureStore.builder().jdbcCatalog(null, "u", "p")));
    rows.add(nul("config rest uri null", () -> FeatureStore.builder().restCatalog(null)));
    rows.add(nul("config catalogProperty null", () -> FeatureStore.builder().catalogProperty(null, "v")));
    rows.add(nul("config busyTimeout null", () -> FeatureStore.builder().busyTimeout(null)));
    rows.add(nul("config warehouse null", () -> FeatureStore.builder().warehouseLocation(null)));
    rows.add(nul("config fileIO null", () -> FeatureStore.builder().fileIO(null)));
    rows.add(nul("config objectStorage null", () -> FeatureStore.builder().objectStorage(null)));
    rows.add(nul("config coldStorage null", () -> FeatureStore.builder().coldStorage(null)));
    rows.add(nul("config coldCache null", () -> FeatureStore.builder().coldCache(null, 1)));
    rows.add(nul("config metrics listener null", () -> FeatureStore.builder().metricsListener(null)));
    rows.add(nul("config clock null", () -> FeatureStore.builder().clock(null)));
    rows.add(nul("config tableDefault null", () -> FeatureStore.builder().tableDefault("k", null)));
    rows.add(nul("storage builder null", () -> ObjectStorage.builder(null)));
    rows.add(nul("storage r2 null", () -> ObjectStorage.r2(null, "b", "k", "s")));
    rows.add(nul("storage fromEnvironment null", () -> ObjectStorage.fromEnvironment(null)));
    rows.add(nul("storage bucket null", () -> ObjectStorage.builder(StorageProvider.B2).bucket(null)));
    rows.add(nul("storage endpoint null", () -> ObjectStorage.builder(StorageProvider.B2).endpoint(null)));
    rows.add(nul("storage region null", () -> ObjectStorage.builder(StorageProvider.B2).region(null)));
    rows.add(nul("storage credentials null", () -> ObjectStorage.builder(StorageProvider.B2).credentials("k", null)));
    rows.add(nul("storage keyPrefix null", () -> ObjectStorage.builder(StorageProvider.B2).keyPrefix(null)));
    rows.add(nul("TableId null namespace", () -> TableId.of(null, "x")));
    rows.add(nul("TableId parse null", () -> TableId.parse(null)));
    rows.add(nul("store.createTable null", () -> store.createTable(null)));
    rows.add(nul("store.table null string", () -> store.table((String) null)));
    rows.add(nul("store.findTable null", () -> store.findTable(null)));
    rows.add(nul("store.tableExists null", () -> store.tableExists(null)));
    rows.add(nul("store.listTables null", () -> store.listTables(null)));
    rows.add(nul("store.dropTable null", () -> store.dropTable(null, false)));
    rows.add(nul("store.unwrap null", () -> store.unwrap(null)));
    rows.add(nul("store.openReadOnly null", () -> store.openReadOnly(null)));
    rows.add(nul("config actor null", () -> FeatureStore.builder().actor(null)));
    rows.add(nul("MetadataTable.fromName null", () -> dev.featurestore.MetadataTable.fromName(null)));
    rows.add(onNull("table.metadata null", t -> t.metadata(null)));
    rows.add(nul("definition null id", () -> TableDefinition.builder((TableId) null, SCHEMA)));
    rows.add(nul("definition null schema", () -> TableDefinition.builder("walk.x", null)));
    rows.add(nul("definition null spec", () -> TableDefinition.builder("walk.x", SCHEMA).partitionSpec(null)));
    rows.add(nul("definition null partitionBy", () -> TableDefinition.builder("walk.x", SCHEMA).partitionBy(null)));
    rows.add(nul("definition null sortBy", () -> TableDefinition.builder("walk.x", SCHEMA).sortBy(null)));
    rows.add(nul("definition null bloom column", () -> TableDefinition.builder("walk.x", SCHEMA).bloomFilter(null, 10)));
    rows.add(nul("definition null property key", () -> TableDefinition.builder("walk.x", SCHEMA).property(null, "v")));
    rows.add(nul("definition null property value", () -> TableDefinition.builder("walk.x", SCHEMA).property("k", null)));
    rows.add(nul("definition null properties", () -> TableDefinition.builder("walk.x", SCHEMA).properties(null)));
    rows.add(nul("definition null location", () -> TableDefinition.builder("walk.x", SCHEMA).location(null)));
    rows.add(nul("partition null schema", () -> PartitionSpecBuilder.of(null)));
    rows.add(nul("partition null column", () -> PartitionSpecBuilder.of(SCHEMA).identity(null)));
    rows.add(nul("partition null spec fields", () -> PartitionSpecBuilder.spec(null)));
    rows.add(nul("bloom fromBytes null", () -> BloomFilter.fromBytes(null)));
    rows.add(nul("bloom merge null", () -> BloomFilter.ofSize(32).merge(null)));
    rows.add(nul("policy null age", () -> MaintenancePolicy.builder().maxSnapshotAge(null)));
    rows.add(nul("policy null orphan window", () -> MaintenancePolicy.builder().orphanSafetyWindow(null)));
    rows.add(nul("policy null check every", () -> MaintenancePolicy.builder().checkEvery(null)));
    rows.add(nul("policy null orphans every", () -> MaintenancePolicy.builder().removeOrphansEvery(null)));
    rows.add(nul("policy null lease", () -> MaintenancePolicy.builder().leaseDuration(null)));
    rows.add(nul("list options null prefix", () -> ListOptions.prefix(null)));
    rows.add(nul("list options null delimiter", () -> ListOptions.prefix("a/").delimiter(null)));
    rows.add(nul("read version null ref", () -> ReadVersion.ref(null)));
    rows.add(nul("read version null time", () -> ReadVersion.asOf(null)));
    rows.add(onNull("ingest null rows", t -> t.ingest().rows(null)));
    rows.add(onNull("ingest null csv", t -> t.ingest().csv(null)));
    rows.add(onNull("ingest null object key", t -> t.ingest().csvObject(null)));
    rows.add(onNull("ingest null branch", t -> t.ingest().toBranch(null)));
    rows.add(onNull("ingest null snapshot property", t -> t.ingest().snapshotProperty("k", null)));
    rows.add(onNull("append null rows", t -> t.append(null)));
    rows.add(onNull("schema add null name", t -> t.evolveSchema().addColumn(null, Types.StringType.get(), null)));
    rows.add(onNull("schema add null type", t -> t.evolveSchema().addColumn("x", null, null)));
    rows.add(onNull("schema rename to null", t -> t.evolveSchema().renameColumn("name", null)));
    rows.add(onNull("schema widen null type", t -> t.evolveSchema().widenColumn("id", null)));
    rows.add(onNull("schema drop null", t -> t.evolveSchema().dropColumn(null)));
    rows.add(onNull("snapshot as of null", t -> t.snapshots().snapshotAsOf(null)));
    rows.add(onNull("rollback to null time", t -> t.snapshots().rollbackToTime(null)));
    rows.add(onNull("tag null name", t -> t.snapshots().createTag(null, first)));
    rows.add(onNull("branch null name", t -> t.snapshots().createBranch(null, first)));
    rows.add(onNull("rename branch null", t -> t.snapshots().renameBranch(null, "x")));
    rows.add(onNull("remove tag null", t -> t.snapshots().removeTag(null)));
    rows.add(onNull("fast forward null", t -> t.snapshots().fastForward("main", null)));
    rows.add(onNull("max snapshot age null", t -> t.snapshots().setMaxSnapshotAge("main", null)));
    rows.add(onNull("max ref age null", t -> t.snapshots().setMaxRefAge("v1", null)));
    rows.add(onNull("query select null", t -> t.query().select((String) null)));
    rows.add(onNull("query filter null", t -> t.query().filter(null)));
    rows.add(onNull("query as of null", t -> t.query().asOf(null)));
    rows.add(onNull("query at ref null", t -> t.query().atRef(null)));
    rows.add(onNull("export to null file", t -> t.query().exportParquet(null)));
    rows.add(onNull("export to null bucket name", t -> t.query().exportToBucket(null)));
    rows.add(onNull("query unwrap null", t -> t.query().unwrap(null)));
    rows.add(onNull("table unwrap null", t -> t.unwrap(null)));
    rows.add(onNull("explain pruning null", t -> t.explainPruning(null)));
    rows.add(onNull("row diff null", t -> t.query().diff((ReadVersion) null)));
    rows.add(onNull("explain pruning of files null filter", t -> t.explainPruning(null, List.of("x"))));
    rows.add(onNull("explain pruning of files null list", t -> t.explainPruning(Expressions.alwaysTrue(), (List<String>) null)));
    rows.add(onNull("explain pruning of files null file", t -> t.explainPruning(Expressions.alwaysTrue(),
        java.util.Arrays.asList((String) null))));
    rows.add(onNull("read bloom filters null", t -> t.readBloomFilters(null)));
    rows.add(onNull("bloom filters null column", t -> t.readBloomFilters(anyDataFile(t)).filters(null)));
    rows.add(onNull("bloom filters null key", t -> t.readBloomFilters(anyDataFile(t)).mightContain("name", null)));
    rows.add(onNull("partition path of null", t -> t.partitionPathOf(null)));
    rows.add(onNull("lookup null column", t -> t.lookup(null)));
    rows.add(onNull("lookup null key", t -> t.lookup("id").get(null)));
    rows.add(onNull("lookup null keys", t -> t.lookup("id").getAll(null)));
    rows.add(onNull("lookup latestBy null", t -> t.lookup("id").latestBy(null)));
    rows.add(onNull("lookup asOf null", t -> t.lookup("id").asOf(null)));
    rows.add(onNull("maintenance plan null", t -> t.maintenance().plan(null)));
    rows.add(onNull("maintenance background null", t -> t.maintenance().background(null)));
    rows.add(onNull("expire older than null", t -> t.maintenance().expireSnapshots().olderThan(null)));
    rows.add(onNull("orphans older than null", t -> t.maintenance().removeOrphanFiles().olderThan(null)));
    rows.add(onNull("compact filter null", t -> t.maintenance().compact().filter(null)));
    rows.add(onNull("compact sort null", t -> t.maintenance().compact().sortBy(null)));
    rows.add(onNull("tier older than null", t -> t.tiering().olderThan(null)));
    rows.add(onNull("evolve spec identity null", t -> t.evolvePartitionSpec().identity(null)));
    rows.add(onNull("evolve spec remove null", t -> t.evolvePartitionSpec().removeField(null)));
    rows.add(onNull("bloom enable null", t -> t.updateBloomFilters().enable(null, 10)));
    rows.add(onNull("bloom disable null", t -> t.updateBloomFilters().disable(null)));
    rows.add(onNull("bloom enable fpp null column", t -> t.updateBloomFilters().enable(null, 10, 0.01)));
    rows.add(onNull("ingest null objects", t -> t.ingest().objects(null)));
    rows.add(onNull("ingest null json", t -> t.ingest().json(null)));
    rows.add(onNull("ingest null parquet", t -> t.ingest().parquet(null)));
    rows.add(onNull("ingest null listener", t -> t.ingest().listener(null, 1)));
    rows.add(onNull("replace tag null", t -> t.snapshots().replaceTag(null, first)));
    rows.add(onNull("replace branch null", t -> t.snapshots().replaceBranch(null, first)));
    rows.add(onNull("remove branch null", t -> t.snapshots().removeBranch(null)));
    rows.add(onNull("min snapshots null branch", t -> t.snapshots().setMinSnapshotsToKeep(null, 1)));
    rows.add(onNull("partition path null", t -> t.partitionPath(null)));
    rows.add(onNull("explain pruning at snapshot null", t -> t.explainPruning(null, first)));
    rows.add(onNull("lookup atOrBefore null", t -> t.lookup("id").latestBy("ts").atOrBefore(null)));
    rows.add(onNull("lookup select null", t -> t.lookup("id").select((String[]) null)));
    rows.add(onNull("maintenance plan listener null",
        t -> t.maintenance().plan(MaintenancePolicy.builder().retainLastSnapshots(5).build()).listener(null)));
    rows.add(onNull("tier listener null", t -> t.tiering().listener(null)));
    rows.add(onNull("evolve spec day null", t -> t.evolvePartitionSpec().day(null)));
    rows.add(onNull("evolve spec bucket null", t -> t.evolvePartitionSpec().bucket(null, 4)));
    rows.add(onNull("evolve spec rename null", t -> t.evolvePartitionSpec().renameField("x", null)));
    rows.add(onNull("schema optional null", t -> t.evolveSchema().makeOptional(null)));
    rows.add(onNull("schema doc null name", t -> t.evolveSchema().updateDoc(null, "d")));
    rows.add(onNull("add required column null name", t -> t.evolveSchema().addRequiredColumn(null, Types.LongType.get(), 1L)));
    rows.add(onNull("add required column null type", t -> t.evolveSchema().addRequiredColumn("x", null, 1L)));
    rows.add(onNull("add required column null default", t -> t.evolveSchema().addRequiredColumn("x", Types.LongType.get(), null)));
    rows.add(nul("objects.stage null stream", () -> objects.stage("x.csv").from((java.io.InputStream) null)));
    rows.add(nul("objects.stage null listener", () -> objects.stage("x.csv").listener(null)));
    rows.add(nul("objects.stage null metadata name", () -> objects.stage("x.csv").metadata(null, "v")));
    rows.add(nul("objects.head null", () -> objects.head(null)));
    rows.add(nul("objects.get null", () -> objects.get(null)));
    rows.add(nul("objects.getRange null", () -> objects.get(null, 0, 1)));
    rows.add(nul("objects.firstBytes null", () -> objects.firstBytes(null, 1)));
    rows.add(nul("objects.preview null", () -> objects.preview(null, 1)));
    rows.add(nul("objects.metadata null", () -> objects.metadata(null)));
    rows.add(nul("objects.delete null", () -> objects.delete(null, true)));
    rows.add(nul("objects.list null options", () -> objects.list((ListOptions) null)));
    rows.add(nul("objects.list null prefix", () -> objects.list((String) null)));
    rows.add(nul("objects.listAll null", () -> objects.listAll(null)));
    rows.add(nul("objects.presign null key", () -> objects.presignedGet(null, Duration.ofHours(1))));
    rows.add(nul("objects.presign null expiry", () -> objects.presignedGet("raw/x", null)));
    rows.add(nul("objects.stage null", () -> objects.stage(null)));
    rows.add(nul("objects.stage null file", () -> objects.stage("x.csv").from((Path) null)));
    rows.add(nul("objects.stage null content type", () -> objects.stage("x.csv").contentType(null)));
    rows.add(nul("objects.stage null metadata value", () -> objects.stage("x.csv").metadata("a", null)));
    return rows;
  }

  @TestFactory
  Stream<DynamicTest> everyEntryPoint_failsTypedWithACannotMessage() {
    return EntryPointWalk.tests(rows());
  }

  @Test
  void nullArguments_nameTheCallAndTheParameter() {
    assertThatThrownBy(() -> store.createTable(null)).isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot create table: definition is null: null");
    assertThatThrownBy(() -> TableId.of("ns", null)).isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot use table id: name is null: null");
    assertThatThrownBy(() -> table.evolveSchema().dropColumn(null)).hasMessage("Cannot drop column: name is null: null");
    assertThatThrownBy(() -> objects.head(null)).hasMessage("Cannot use object key: key is null: null");
  }

  @Test
  void tableIdMessages_nameThePartAndShowTheValueEscaped() {
    assertThatThrownBy(() -> TableId.of("ns", "a\0b"))
        .hasMessage("Cannot use table name: expected letters, digits and underscores, starting with a letter or underscore: 'a\\u0000b'");
    assertThatThrownBy(() -> TableId.of("", "c")).hasMessage("Cannot use table namespace: is empty: ''");
    assertThatThrownBy(() -> TableId.of("ns", "x".repeat(300)))
        .hasMessageStartingWith("Cannot use table name: longer than 128 characters (300): 'xxx");
    assertThatThrownBy(() -> TableId.parse("a\nb")).hasMessage("Cannot parse table id: expected namespace.name: 'a\\u000ab'");
    assertThat(TableId.parse("features.feature_events")).isEqualTo(TableId.of("features", "feature_events"));
    assertThat(TableId.of("_n", "x".repeat(128)).name()).hasSize(128);
  }

  // ---- the fixtures the rows run against

  static String anyDataFile(FeatureTable t) {
    return t.explainPruning(Expressions.alwaysTrue()).files().get(0).location();
  }

  static Row bad(String name, Executable call) {
    return EntryPointWalk.bad(name, call);
  }

  static Row bad(String name, Class<? extends FeatureStoreException> type, Executable call) {
    return EntryPointWalk.bad(name, type, call);
  }

  static Row nul(String name, Executable call) {
    return EntryPointWalk.nul(name, call);
  }

  /** A null argument on the table: typed, named, and the table as it was. */
  static Row onNull(String name, Consumer<FeatureTable> call) {
    return new Row(name, () -> {
      onTable(name, InvalidArgumentException.class, call).check().execute();
      nul(name, () -> call.accept(table)).check().execute();
    });
  }

  static Row onStore(String name, Executable call) {
    return onStore(name, FeatureStoreException.class, call);
  }

  static Row onStore(String name, Class<? extends FeatureStoreException> type, Executable call) {
    return EntryPointWalk.onStore(name, type, store, call);
  }

  static Row onTable(String name, Consumer<FeatureTable> call) {
    return onTable(name, FeatureStoreException.class, call);
  }

  static Row onTable(String name, Class<? extends FeatureStoreException> type, Consumer<FeatureTable> call) {
    return EntryPointWalk.onTable(name, type, store, TableId.parse("walk.t"), call);
  }

  static Row onS3Table(String name, Class<? extends FeatureStoreException> type, Consumer<FeatureTable> call) {
    return EntryPointWalk.onTable(name, type, s3store, TableId.parse("walk.s3"), call);
  }
}
