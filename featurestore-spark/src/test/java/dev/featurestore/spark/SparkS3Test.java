package dev.featurestore.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.core.storage.s3.FeatureStoreS3ClientFactory;
import dev.featurestore.core.storage.s3.ProviderGate;
import dev.featurestore.core.storage.s3.S3TestServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store in a B2 bucket (a real S3 server on loopback behind a gate that answers as B2 does:
 * flexible checksum headers and conditional writes refused), read and compacted by Spark through
 * the S3 client of the store's provider profile: no request is refused, none is a bulk delete,
 * every one carries the library's user agent, and the library reads the same rows afterwards.
 */
class SparkS3Test {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();

  private static final TableId TABLE = TableId.of("features", "events");

  @TempDir Path dir;

  @Test
  void aB2Bucket_readAndCompactedBySpark_seesNoRefusedRequest() {
    try (FeatureStore store = FeatureStore.builder().root(dir.resolve("store")).objectStorage(s3.b2ThroughGate()).build()) {
      FeatureTable table = store.createTable(TableDefinition.builder(TABLE, new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "value", Types.DoubleType.get()))).formatVersion(3).build());
      for (int commit = 0; commit < 4; commit++) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
          rows.add(Map.of("id", commit * 100L + i, "value", i / 4.0));
        }
        table.append(rows);
      }
      table.deleteRows().where(Expressions.equal("value", 0.0)).execute();
      List<List<String>> expected = RowText.of(table.query(), List.of("id", "value"));
      s3.gate().reset();

      SparkFeatureStore spark = SharedSpark.attach(store);
      assertThat(spark.session().conf().get("spark.sql.catalog." + spark.catalogName() + ".s3.client-factory-impl"))
          .isEqualTo(FeatureStoreS3ClientFactory.class.getName());
      assertThat(RowText.of(spark.read(table.query()))).as("Spark's read through the gate").isEqualTo(expected);
      assertThat(spark.maintenance(TABLE).compact().execute().rewrittenDataFiles()).isEqualTo(4);
      assertThat(spark.maintenance(TABLE).expireSnapshots().retainLast(1).execute().deletedFiles()).isPositive();

      ProviderGate gate = s3.gate();
      assertThat(gate.seen()).as("Spark's requests").isNotEmpty();
      assertThat(gate.refusals()).as("requests the B2 gate refused (checksum headers, conditional writes, region)")
          .isEmpty();
      assertThat(gate.seen()).as("no bulk delete (B2 refuses DeleteObjects)").noneMatch(s -> s.target().contains("?delete"));
      assertThat(gate.seen()).as("the library's user agent on every request")
          .allMatch(s -> s.headers().getOrDefault("user-agent", "").contains(FeatureStoreS3ClientFactory.USER_AGENT));
      table.refresh();
      assertThat(RowText.of(table.query(), List.of("id", "value"))).as("the library after Spark's compaction")
          .isEqualTo(expected);
    }
  }
}
