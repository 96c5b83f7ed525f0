package dev.featurestore.core.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.StorageException;
import dev.featurestore.StorageProvider;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.core.base.Errors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The table journey on each provider profile, through the gate that answers as its provider does
 * in front of a real S3 server: create, append, evolve, time travel, roll back, reopen, drop with
 * purge; and on B2 under injected faults. Ingest and query are other packages' work, so this test
 * writes and reads with Iceberg directly.
 */
class S3TableJourneyTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir Path root;

  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "score", Types.DoubleType.get()));

  private FeatureStore open() {
    return open(StorageProvider.B2);
  }

  private FeatureStore open(StorageProvider provider) {
    return FeatureStore.builder().root(root).objectStorage(s3.through(provider)).build();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(StorageProvider.class)
  void journey_onEachProfileThroughItsGate_keepsTablesInBucketAndCatalogLocal(StorageProvider provider) {
    TableId id = TableId.of("journey_" + provider.name().toLowerCase(java.util.Locale.ROOT), "scores");
    runJourney(provider, id);
    assertThat(s3.gate(provider).refusals()).isEmpty();
    // B2 deletes one object per request (its DeleteObjects carries a refused checksum header)
    assertThat(s3.gate(provider).seen().stream().anyMatch(seen -> seen.target().contains("?delete")))
        .isEqualTo(provider != StorageProvider.B2);
  }

  @Test
  void journey_with20PercentServiceUnavailable_succeedsThroughRetries() {
    s3.gate().faults(new ProviderGate.Faults(0, 0, 0.20, 0, 0, 42));
    runJourney(StorageProvider.B2, TableId.of("flaky", "scores_503"));
    assertThat(s3.gate().injectedFaults()).isGreaterThan(5);
  }

  @Test
  void journey_withDropsErrorsAndSlowResponses_succeedsThroughRetries() {
    s3.gate().faults(new ProviderGate.Faults(0.05, 0.05, 0.05, 0.05, 300, 7));
    runJourney(StorageProvider.B2, TableId.of("flaky", "scores_mixed"));
    assertThat(s3.gate().injectedFaults()).isGreaterThan(5);
  }

  @Test
  void commit_whenStorageFailsHard_failsTypedAndTableKeepsPreviousSnapshot() {
    TableId id = TableId.of("hard", "scores");
    long before;
    try (FeatureStore store = open()) {
      Table table = store.createTable(TableDefinition.builder(id, SCHEMA).build()).unwrap(Table.class);
      append(table, rows(SCHEMA, 0, 10, null));
      before = table.currentSnapshot().snapshotId();

      // Everything of the next commit reaches the bucket except its new metadata.json.
      s3.gate().failHard(seen -> seen.method().equals("PUT") && seen.target().contains(".metadata.json"));
      DataFile file = write(table, rows(SCHEMA, 10, 20, null));
      assertThatThrownBy(() -> {
        try {
          table.newAppend().appendFile(file).commit();
        } catch (RuntimeException e) {
          throw Errors.translate(e, "commit to table " + id);
        }
      }).isInstanceOf(StorageException.class)
          .hasMessageStartingWith("Cannot commit to table hard.scores: storage unavailable after retries (HTTP 500 InternalError)");
      s3.gate().reset();
    }
    try (FeatureStore store = open()) {
      Table table = store.table(id).unwrap(Table.class);
      assertThat(table.currentSnapshot().snapshotId()).isEqualTo(before);
      assertThat(count(table)).isEqualTo(10); // every file the table points to is readable
    }
  }

  private void runJourney(StorageProvider provider, TableId id) {
    String tablePrefix = "warehouse/" + id.namespace() + "/" + id.name() + "/";
    long first;
    long second;
    try (FeatureStore store = open(provider)) {
      FeatureTable created = store.createTable(TableDefinition.builder(id, SCHEMA).build());
      assertThat(created.location()).isEqualTo("s3://" + S3TestServer.BUCKET + "/" + tablePrefix.substring(0, tablePrefix.length() - 1));
      Table table = created.unwrap(Table.class);

      append(table, rows(table.schema(), 0, 100, null));
      first = table.currentSnapshot().snapshotId();
      append(table, rows(table.schema(), 100, 150, null));
      second = table.currentSnapshot().snapshotId();
      assertThat(count(table)).isEqualTo(150);

      table.updateSchema().addColumn("label", Types.StringType.get()).commit();
      append(table, rows(table.schema(), 150, 170, "new"));
      assertThat(count(table)).isEqualTo(170);
      assertThat(labelled(table)).isEqualTo(20);

      assertThat(countAt(table, first)).isEqualTo(100);

      table.manageSnapshots().rollbackTo(second).commit();
      assertThat(count(table)).isEqualTo(150);
    }

    // What lives where: the catalog is a local file, everything of the table is in the bucket.
    assertThat(root.resolve("catalog.db")).isRegularFile();
    assertThat(root.resolve("warehouse")).doesNotExist();
    List<String> keys = s3.keys(tablePrefix);
    assertThat(keys).anyMatch(k -> k.startsWith(tablePrefix + "data/") && k.endsWith(".parquet"));
    assertThat(keys).anyMatch(k -> k.startsWith(tablePrefix + "metadata/") && k.endsWith(".metadata.json"));
    assertThat(keys).anyMatch(k -> k.startsWith(tablePrefix + "metadata/") && k.endsWith(".avro"));
    assertThat(s3.keys("")).noneMatch(k -> k.endsWith(".db"));

    try (FeatureStore store = open(provider)) {
      Table table = store.table(id).unwrap(Table.class);
      assertThat(table.currentSnapshot().snapshotId()).isEqualTo(second);
      assertThat(count(table)).isEqualTo(150);
      assertThat(store.dropTable(id, true)).isTrue();
    }
    assertThat(s3.keys(tablePrefix)).isEmpty();
  }

  static List<Record> rows(Schema schema, int from, int to, String label) {
    List<Record> rows = new ArrayList<>();
    for (int i = from; i < to; i++) {
      Record r = GenericRecord.create(schema);
      r.setField("id", (long) i);
      r.setField("name", "entity-" + i);
      r.setField("score", i * 0.5);
      if (schema.findField("label") != null) {
        r.setField("label", label);
      }
      rows.add(r);
    }
    return rows;
  }

  static DataFile write(Table table, List<Record> rows) {
    FileIO io = table.io();
    String path = table.locationProvider().newDataLocation("part-" + UUID.randomUUID() + ".parquet");
    try {
      DataWriter<Record> writer = Parquet.writeData(io.newOutputFile(path))
          .forTable(table)
          .createWriterFunc(GenericParquetWriter::create)
          .overwrite()
          .build();
      try (writer) {
        for (Record r : rows) {
          writer.write(r);
        }
      }
      return writer.toDataFile();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void append(Table table, List<Record> rows) {
    table.newAppend().appendFile(write(table, rows)).commit();
  }

  static long count(Table table) {
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      long n = 0;
      for (Record ignored : records) {
        n++;
      }
      return n;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static long countAt(Table table, long snapshotId) {
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
      long n = 0;
      for (Record ignored : records) {
        n++;
      }
      return n;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static long labelled(Table table) {
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      long n = 0;
      for (Record r : records) {
        if ("new".equals(r.getField("label"))) {
          n++;
        }
      }
      return n;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
