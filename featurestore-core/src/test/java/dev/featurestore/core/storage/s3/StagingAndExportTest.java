package dev.featurestore.core.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.AlreadyExistsException;
import dev.featurestore.ExportResult;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.IngestResult;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.NotFoundException;
import dev.featurestore.ObjectMetadata;
import dev.featurestore.ObjectUpload;
import dev.featurestore.StorageException;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.UploadResult;
import dev.featurestore.ValidationException;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.model.MultipartUpload;

/** Raw staging (single PUT and multipart, failure leaves nothing), staged-object ingest and exports, through the B2 gate. */
class StagingAndExportTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir static Path root;
  static FeatureStore store;

  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "score", Types.DoubleType.get()));

  static final long MIB5 = 5L * 1024 * 1024;

  @BeforeAll
  static void open() {
    store = FeatureStore.builder().root(root).objectStorage(s3.b2ThroughGate()).build();
  }

  @AfterAll
  static void close() {
    store.close();
  }

  private static Path randomFile(String name, int bytes) throws Exception {
    byte[] data = new byte[bytes];
    new Random(bytes).nextBytes(data);
    return Files.write(root.resolve(name), data);
  }

  private static String sha256(Path file) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
  }

  private static List<MultipartUpload> pendingUploads() {
    return s3.direct().listMultipartUploads(b -> b.bucket(S3TestServer.BUCKET)).uploads();
  }

  @Test
  void stage_smallFile_isOnePutWithContentType() throws Exception {
    Path file = Files.writeString(root.resolve("small.csv"), "id,name\n1,a\n");
    UploadResult result = store.objects().stage("small.csv").from(file).metadata("origin", "test").commit();
    assertThat(result).isEqualTo(new UploadResult("raw/small.csv", 12, result.etag(), 0));
    assertThat(store.objects().head("raw/small.csv").contentType()).isEqualTo("text/csv");
    assertThat(store.objects().head("raw/small.csv").userMetadata()).containsEntry("origin", "test");
    assertThatThrownBy(() -> store.objects().stage("small.csv").from(file).commit())
        .isInstanceOf(AlreadyExistsException.class)
        .hasMessage("Cannot upload object: object already exists, pass overwrite(true) to replace it: raw/small.csv");
    ObjectUpload once = store.objects().stage("small.csv").from(file).overwrite(true);
    assertThat(once.commit().bytes()).isEqualTo(12);
    assertThatThrownBy(once::commit)
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot commit upload: already committed: raw/small.csv");
    assertThatThrownBy(() -> once.listener((sent, total) -> {}))
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot change upload: already committed: raw/small.csv");
    assertThatThrownBy(() -> store.objects().stage("none.csv").commit())
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot commit upload: no source set: raw/none.csv");
    assertThatThrownBy(() -> store.objects().stage("missing.csv").from(root.resolve("nope.csv")).commit())
        .isInstanceOf(NotFoundException.class).hasMessage("Cannot upload file: file does not exist: " + root.resolve("nope.csv"));
    assertThatThrownBy(() -> store.objects().stage("x.csv").partSize(4_999_999))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set part size: expected 5000000 (B2's minimum) to 1 GiB: 4999999");
  }

  @Test
  void stage_12MbFileWith5MbParts_isMultipartWithProgress() throws Exception {
    Path file = randomFile("big.bin", 12_000_000);
    List<long[]> progress = new ArrayList<>();
    // s3proxy, like S3, wants 5 MiB parts; B2's own minimum (5,000,000) is lower
    UploadResult result = store.objects().stage("big.bin").from(file).partSize(MIB5).multipartThreshold(MIB5)
        .listener((sent, total) -> progress.add(new long[] {sent, total})).commit();
    assertThat(result.parts()).isEqualTo(3);
    assertThat(result.bytes()).isEqualTo(12_000_000);
    // parts go in parallel: progress is cumulative, increasing, and ends at the size
    assertThat(progress).hasSize(3);
    assertThat(progress).extracting(p -> p[0]).isSorted().last().isEqualTo(12_000_000L);
    assertThat(progress).extracting(p -> p[1]).containsOnly(12_000_000L);
    ObjectMetadata metadata = store.objects().metadata("raw/big.bin");
    assertThat(metadata.head().size()).isEqualTo(12_000_000);
    assertThat(metadata.sha256()).isEqualTo(sha256(file));
    assertThat(pendingUploads()).isEmpty();
    assertThat(s3.gate().refusals()).isEmpty();
  }

  @Test
  void stage_fileBelowTheSinglePutLimit_isOneStreamedPut() throws Exception {
    Path file = randomFile("medium.bin", 12_000_000);
    List<long[]> progress = new ArrayList<>();
    UploadResult result = store.objects().stage("medium.bin").from(file)
        .listener((sent, total) -> progress.add(new long[] {sent, total})).commit();
    // B2's default single-PUT limit for a file is 200 MiB: no multipart upload, one PUT
    assertThat(result).isEqualTo(new UploadResult("raw/medium.bin", 12_000_000, result.etag(), 0));
    assertThat(progress).containsExactly(new long[] {12_000_000, 12_000_000});
    assertThat(s3.gate().seen()).filteredOn(seen -> seen.target().contains("medium.bin"))
        .extracting(ProviderGate.Seen::method).containsExactly("HEAD", "PUT");
    assertThat(s3.gate().seen()).noneMatch(seen -> seen.target().contains("uploads") || seen.target().contains("uploadId"));
    assertThat(store.objects().metadata("raw/medium.bin").sha256()).isEqualTo(sha256(file));
    assertThat(s3.gate().refusals()).isEmpty();
  }

  @Test
  void stage_thresholdAboveTheLargestSinglePut_isRefused() {
    assertThatThrownBy(() -> store.objects().stage("x.bin").multipartThreshold(5_000_000_001L))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set multipart threshold: expected 0 to 5000000000 (the largest single PUT B2 accepts): 5000000001");
  }

  @Test
  void stage_stream_isMultipartInBoundedParts() throws Exception {
    Path file = randomFile("stream.bin", 11_000_000);
    try (InputStream in = Files.newInputStream(file)) {
      UploadResult result = store.objects().stage("stream.bin").from(in).partSize(MIB5).commit();
      assertThat(result.parts()).isEqualTo(3);
    }
    assertThat(store.objects().metadata("raw/stream.bin").sha256()).isEqualTo(sha256(file));
    UploadResult small = store.objects().stage("tiny.jsonl")
        .from(new ByteArrayInputStream("{\"id\":1}\n".getBytes(StandardCharsets.UTF_8))).commit();
    assertThat(small.parts()).isZero();
    assertThat(store.objects().head("raw/tiny.jsonl").contentType()).isEqualTo("application/x-ndjson");
  }

  @Test
  void listMultipartUploads_seesAnUnfinishedUpload() {
    // proves the "no parts left" assertions below can fail
    String id = s3.direct().createMultipartUpload(b -> b.bucket(S3TestServer.BUCKET).key("raw/unfinished.bin")).uploadId();
    assertThat(pendingUploads()).extracting(MultipartUpload::key).containsExactly("raw/unfinished.bin");
    s3.direct().abortMultipartUpload(b -> b.bucket(S3TestServer.BUCKET).key("raw/unfinished.bin").uploadId(id));
    assertThat(pendingUploads()).isEmpty();
  }

  @Test
  void stage_failureMidUpload_abortsAndLeavesNoObjectAndNoParts() throws Exception {
    Path file = randomFile("fails.bin", 12_000_000);
    s3.gate().failHard(seen -> seen.method().equals("PUT") && seen.target().contains("partNumber=2"));
    assertThatThrownBy(() -> store.objects().stage("fails.bin").from(file).partSize(5_000_000)
        .multipartThreshold(5_000_000).commit())
        .isInstanceOf(StorageException.class)
        .hasMessage("Cannot upload object raw/fails.bin: storage unavailable after retries (HTTP 500 InternalError),"
            + " retry later: bucket fs-test-bucket at " + s3.gate().endpoint());
    assertThat(s3.gate().injectedFaults()).isGreaterThan(1); // retried before giving up
    assertThat(s3.gate().seen()).anyMatch(seen -> seen.method().equals("DELETE") && seen.target().contains("uploadId="));
    assertThat(s3.keys("raw/fails.bin")).isEmpty();
    assertThat(pendingUploads()).isEmpty();
  }

  @Test
  void stage_streamFailingMidUpload_abortsAndLeavesNothing() throws Exception {
    InputStream failing = new InputStream() {
      long left = 7_000_000;

      @Override
      public int read() throws java.io.IOException {
        if (left-- <= 0) {
          throw new java.io.IOException("disk went away");
        }
        return 'x';
      }
    };
    assertThatThrownBy(() -> store.objects().stage("broken.bin").from(failing).partSize(5_000_000).commit())
        .isInstanceOf(StorageException.class)
        .hasMessage("Cannot upload object raw/broken.bin: cannot read the source: disk went away");
    assertThat(s3.keys("raw/broken.bin")).isEmpty();
    assertThat(pendingUploads()).isEmpty();
  }

  @Test
  void ingest_stagedCsvJsonAndParquetObjects() throws Exception {
    FeatureTable table = store.createTable(TableDefinition.builder(TableId.of("staged", "scores"), SCHEMA).build());
    Path csv = Files.writeString(root.resolve("in.csv"), "id,name,score\n1,a,0.5\n2,b,\n3,c,1.5\n");
    String csvKey = store.objects().stage("in.csv").from(csv).commit().key();
    IngestResult fromCsv = table.ingest().csvObject(csvKey).commit();
    assertThat(fromCsv.rows()).isEqualTo(3);
    assertThat(table.unwrap(Table.class).currentSnapshot().summary())
        .containsEntry("featurestore.ingest.source", "csv").containsEntry("featurestore.ingest.object", "raw/in.csv");

    Path json = Files.writeString(root.resolve("in.jsonl"), "{\"id\":4,\"name\":\"d\",\"score\":2.5}\n{\"id\":5}\n");
    table.ingest().jsonObject(store.objects().stage("in.jsonl").from(json).commit().key()).commit();
    assertThat(table.query().count()).isEqualTo(5);

    // a Parquet object: this table's own rows exported to the bucket, then ingested again
    ExportResult export = table.query().filter(Expressions.lessThanOrEqual("id", 2)).exportToBucket("ids-up-to-2");
    assertThat(export.location()).isEqualTo("s3://fs-test-bucket/exports/ids-up-to-2.parquet");
    IngestResult fromParquet = table.ingest().parquetObject("exports/ids-up-to-2.parquet").commit();
    assertThat(fromParquet.rows()).isEqualTo(2);
    assertThat(table.query().count()).isEqualTo(7);

    assertThatThrownBy(() -> table.ingest().csvObject("raw/none.csv").commit()).isInstanceOf(NotFoundException.class)
        .hasMessage("Cannot read ingest source: object does not exist: raw/none.csv");
    assertThatThrownBy(() -> table.ingest().csvObject("raw/../x.csv"))
        .hasMessage("Cannot use object key: parent segment: raw/../x.csv");
  }

  @Test
  void ingest_badStagedCsv_failsAndCommitsNothing() throws Exception {
    FeatureTable table = store.createTable(TableDefinition.builder(TableId.of("staged", "bad"), SCHEMA).build());
    Path csv = Files.writeString(root.resolve("bad.csv"), "id,name,score\n1,a,0.5\nnot-a-number,b,1\n");
    store.objects().stage("bad.csv").from(csv).commit();
    assertThatThrownBy(() -> table.ingest().csvObject("raw/bad.csv").commit())
        .hasMessage("Cannot ingest row 3: column id expects long: \"not-a-number\"");
    assertThat(table.unwrap(Table.class).currentSnapshot()).isNull();
    assertThat(s3.keys("warehouse/staged/bad/data/")).isEmpty();
  }

  @Test
  void exportToBucket_keepsLineageAndRefusesOverwrite() throws Exception {
    FeatureTable table = store.createTable(TableDefinition.builder(TableId.of("staged", "exported"), SCHEMA).build());
    table.append(List.of(java.util.Map.of("id", 1L, "name", "a"), java.util.Map.of("id", 2L, "name", "b")));
    ExportResult result = table.query().select("id", "name").exportToBucket("slice.parquet");
    assertThat(result.location()).isEqualTo("s3://fs-test-bucket/exports/slice.parquet");
    assertThat(result.rows()).isEqualTo(2);
    assertThat(result.lineage().columns()).containsExactly("id", "name");
    assertThat(store.objects().head("exports/slice.parquet").size()).isEqualTo(result.bytes());
    assertThat(store.objects().head("exports/slice.parquet").contentType()).isEqualTo("application/vnd.apache.parquet");
    Path local = root.resolve("slice-copy.parquet");
    try (InputStream in = store.objects().get("exports/slice.parquet")) {
      Files.copy(in, local);
    }
    try (ParquetFileReader reader = ParquetFileReader.open(new org.apache.parquet.io.LocalInputFile(local))) {
      assertThat(reader.getFooter().getFileMetaData().getKeyValueMetaData().get("featurestore.lineage"))
          .contains("\"table\":\"staged.exported\"").contains("\"columns\":[\"id\",\"name\"]");
    }
    assertThatThrownBy(() -> table.query().exportToBucket("slice"))
        .isInstanceOf(AlreadyExistsException.class).hasMessage("Cannot export: object already exists: exports/slice.parquet");
    assertThatThrownBy(() -> table.query().exportToBucket("../escape"))
        .isInstanceOf(InvalidArgumentException.class).hasMessage("Cannot use object key: parent segment: ../escape");
  }

  @Test
  void exportToBucket_whenUploadFails_leavesNoObject() {
    FeatureTable table = store.createTable(TableDefinition.builder(TableId.of("staged", "failing"), SCHEMA).build());
    table.append(List.of(java.util.Map.of("id", 1L)));
    s3.gate().failHard(seen -> seen.method().equals("PUT") && seen.target().contains("/exports/"));
    assertThatThrownBy(() -> table.query().exportToBucket("fails")).isInstanceOf(StorageException.class)
        .hasMessageStartingWith("Cannot upload object exports/fails.parquet: storage unavailable after retries (HTTP 500 InternalError)");
    assertThat(s3.keys("exports/fails")).isEmpty();
  }

  @Test
  void localStore_exportToBucketAndObjectIngest_failNamingTheAlternative(@TempDir Path dir) {
    try (FeatureStore local = FeatureStore.openLocal(dir)) {
      FeatureTable table = local.createTable(TableDefinition.builder(TableId.of("l", "t"), SCHEMA).build());
      assertThatThrownBy(() -> table.query().exportToBucket("x")).isInstanceOf(ValidationException.class)
          .hasMessage("Cannot export to bucket: the store is not on object storage, use exportParquet(Path): x");
      assertThatThrownBy(() -> table.ingest().csvObject("raw/x.csv").commit()).isInstanceOf(ValidationException.class)
          .hasMessage("Cannot ingest object: the store is not on object storage, use csv/json/parquet(Path): raw/x.csv");
    }
  }
}
