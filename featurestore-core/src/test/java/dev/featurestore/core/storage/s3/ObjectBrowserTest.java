package dev.featurestore.core.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.ListOptions;
import dev.featurestore.NotFoundException;
import dev.featurestore.ObjectBrowser;
import dev.featurestore.ObjectHead;
import dev.featurestore.ObjectMetadata;
import dev.featurestore.ObjectPage;
import dev.featurestore.ObjectPreview;
import dev.featurestore.ObjectSummary;
import dev.featurestore.ValidationException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;

/** The object browser on the B2 profile, through the B2 gate in front of s3proxy. */
class ObjectBrowserTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir static Path root;
  static FeatureStore store;
  static ObjectBrowser objects;

  static final String CSV = "id,name,score\n1,a,0.5\n2,b,\n3,c,1.5\n";

  @BeforeAll
  static void open() {
    store = FeatureStore.builder().root(root).objectStorage(s3.b2ThroughGate()).build();
    objects = store.objects();
  }

  @AfterAll
  static void close() {
    store.close();
  }

  private static void put(String key, String content, String contentType, Map<String, String> metadata) {
    s3.direct().putObject(b -> b.bucket(S3TestServer.BUCKET).key(key).contentType(contentType).metadata(metadata),
        RequestBody.fromString(content));
  }

  @Test
  void list_withDelimiter_rollsUpFolders() {
    put("browse/a.csv", "x", "text/csv", Map.of());
    put("browse/sub/b.csv", "y", "text/csv", Map.of());
    put("browse/sub/deeper/c.csv", "z", "text/csv", Map.of());
    ObjectPage page = objects.list(ListOptions.prefix("browse/").delimiter("/"));
    assertThat(page.objects()).extracting(ObjectSummary::key).containsExactly("browse/a.csv");
    assertThat(page.commonPrefixes()).containsExactly("browse/sub/");
    assertThat(page.hasMore()).isFalse();
    assertThat(page.objects().get(0).size()).isEqualTo(1);
    assertThat(page.objects().get(0).etag()).doesNotContain("\"").isNotEmpty();
  }

  @Test
  void list_moreThan1000Keys_pagesAt1000AndWithSmallPages() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2); // more connections made s3proxy drop some under load
    try {
      List<Future<?>> puts = new ArrayList<>();
      for (int i = 0; i < 1050; i++) {
        String key = String.format("many/k%04d", i);
        puts.add(pool.submit(() -> s3.direct().putObject(b -> b.bucket(S3TestServer.BUCKET).key(key), RequestBody.empty())));
      }
      for (Future<?> f : puts) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    ObjectPage first = objects.list("many/");
    assertThat(first.objects()).hasSize(1000);
    assertThat(first.hasMore()).isTrue();
    ObjectPage second = objects.list(ListOptions.prefix("many/").after(first.nextToken().get()));
    assertThat(second.objects()).hasSize(50);
    assertThat(second.objects().get(0).key()).isEqualTo("many/k1000");
    assertThat(second.hasMore()).isFalse();

    List<String> keys = new ArrayList<>();
    ListOptions small = ListOptions.prefix("many/").pageSize(300);
    ObjectPage page = objects.list(small);
    int pages = 1;
    page.objects().forEach(o -> keys.add(o.key()));
    while (page.hasMore()) {
      page = objects.list(small.after(page.nextToken().get()));
      page.objects().forEach(o -> keys.add(o.key()));
      pages++;
    }
    assertThat(pages).isEqualTo(4);
    assertThat(keys).hasSize(1050).doesNotHaveDuplicates().isSorted();
    try (Stream<ObjectSummary> all = objects.listAll("many/")) {
      assertThat(all.count()).isEqualTo(1050);
    }
    assertThatThrownBy(() -> ListOptions.prefix("many/").pageSize(1001))
        .isInstanceOf(InvalidArgumentException.class).hasMessage("Cannot list objects: page size must be 1 to 1000: 1001");
  }

  @Test
  void headAndGet_returnMetadataAndStreamedRanges() throws Exception {
    put("raw/head.csv", CSV, "text/csv", Map.of("source", "unit-test"));
    ObjectHead head = objects.head("raw/head.csv");
    assertThat(head.size()).isEqualTo(CSV.length());
    assertThat(head.contentType()).isEqualTo("text/csv");
    assertThat(head.userMetadata()).containsEntry("source", "unit-test");
    assertThat(head.lastModified()).isNotNull();
    try (InputStream in = objects.get("raw/head.csv")) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(CSV);
    }
    try (InputStream in = objects.get("raw/head.csv", 3, 4)) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("name");
    }
    assertThat(new String(objects.firstBytes("raw/head.csv", 2), StandardCharsets.UTF_8)).isEqualTo("id");
    assertThatThrownBy(() -> objects.head("raw/missing.csv")).isInstanceOf(NotFoundException.class)
        .hasMessage("Cannot read object raw/missing.csv: no such object");
    assertThatThrownBy(() -> objects.get("raw/missing.csv")).isInstanceOf(NotFoundException.class)
        .hasMessage("Cannot read object raw/missing.csv: no such object");
    assertThat(s3.gate().refusals()).isEmpty();
  }

  @Test
  void preview_csvJsonLinesJsonArrayAndParquet() throws Exception {
    put("raw/p.csv", CSV, "text/csv", Map.of());
    ObjectPreview csv = objects.preview("raw/p.csv", 2);
    assertThat(csv.format()).isEqualTo(ObjectPreview.Format.CSV);
    assertThat(csv.columns()).containsExactly("id", "name", "score");
    assertThat(csv.rows()).hasSize(2);
    assertThat(csv.rows().get(0)).containsExactly(Map.entry("id", "1"), Map.entry("name", "a"), Map.entry("score", "0.5"));
    assertThat(csv.rows().get(1)).containsEntry("score", null);

    put("raw/p.jsonl", "{\"id\":1,\"tags\":[\"x\"]}\n{\"id\":2,\"extra\":true}\n{\"id\":3}\n", "application/x-ndjson", Map.of());
    ObjectPreview lines = objects.preview("raw/p.jsonl", 2);
    assertThat(lines.columns()).containsExactly("id", "tags", "extra");
    assertThat(lines.rows()).containsExactly(Map.of("id", 1, "tags", List.of("x")), Map.of("id", 2, "extra", true));

    put("raw/p.json", "[{\"id\":1},{\"id\":2},{\"id\":3}]", "application/json", Map.of());
    assertThat(objects.preview("raw/p.json", 10).rows()).hasSize(3);

    writeParquet("raw/p.parquet", 250);
    ObjectPreview parquet = objects.preview("raw/p.parquet", 3);
    assertThat(parquet.format()).isEqualTo(ObjectPreview.Format.PARQUET);
    assertThat(parquet.rowCount()).contains(250L);
    assertThat(parquet.columns()).containsExactly("id", "name");
    assertThat(parquet.rows()).containsExactly(Map.of("id", 0L, "name", "n0"), Map.of("id", 1L, "name", "n1"),
        Map.of("id", 2L, "name", "n2"));
    assertThat(parquet.schema().get()).contains("required int64 id = 1");

    put("raw/p.bin", "xyz", "application/octet-stream", Map.of());
    assertThatThrownBy(() -> objects.preview("raw/p.bin", 5)).isInstanceOf(ValidationException.class)
        .hasMessage("Cannot preview object: unknown format, expected .csv, .json, .jsonl, .ndjson or .parquet (use firstBytes): raw/p.bin");
  }

  private static void writeParquet(String key, int rows) throws Exception {
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "name", Types.StringType.get()));
    Path file = root.resolve(key.replace('/', '_'));
    try (FileAppender<Record> appender = Parquet.write(Files.localOutput(file.toFile())).schema(schema)
        .createWriterFunc(GenericParquetWriter::create).build()) {
      for (long i = 0; i < rows; i++) {
        GenericRecord r = GenericRecord.create(schema);
        r.set(0, i);
        r.set(1, "n" + i);
        appender.add(r);
      }
    }
    s3.direct().putObject(b -> b.bucket(S3TestServer.BUCKET).key(key), RequestBody.fromFile(file));
  }

  @Test
  void metadata_computesSha256AndParquetSummary() throws Exception {
    put("raw/m.csv", CSV, "text/csv", Map.of());
    ObjectMetadata csv = objects.metadata("raw/m.csv");
    String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(CSV.getBytes(StandardCharsets.UTF_8)));
    assertThat(csv.sha256()).isEqualTo(expected);
    assertThat(csv.parquet()).isEmpty();
    assertThat(csv.head().contentType()).isEqualTo("text/csv");

    writeParquet("raw/m.parquet", 42);
    ObjectMetadata parquet = objects.metadata("raw/m.parquet");
    assertThat(parquet.parquet()).isPresent();
    assertThat(parquet.parquet().get().rowCount()).isEqualTo(42);
    assertThat(parquet.parquet().get().columns()).containsExactly("id", "name");
    assertThat(parquet.parquet().get().rowGroups()).isEqualTo(1);
  }

  @Test
  void presignedGet_worksWithPlainHttpThroughTheGate_andExpiryIsBounded() throws Exception {
    put("exports/shared.csv", CSV, "text/csv", Map.of());
    URI url = objects.presignedGet("exports/shared.csv", Duration.ofMinutes(5));
    assertThat(url.toString()).startsWith(s3.gate().endpoint() + "/fs-test-bucket/exports/shared.csv?")
        .contains("X-Amz-Expires=300").doesNotContain(S3TestServer.SECRET);
    HttpResponse<String> response = HttpClient.newHttpClient()
        .send(HttpRequest.newBuilder(url).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo(CSV);

    URI tampered = URI.create(url.toString().replace("X-Amz-Expires=300", "X-Amz-Expires=301"));
    assertThat(HttpClient.newHttpClient().send(HttpRequest.newBuilder(tampered).GET().build(),
        HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(403);

    assertThatThrownBy(() -> objects.presignedGet("exports/shared.csv", Duration.ofMillis(500)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot presign object: expiry must be 1 second to 7 days: PT0.5S");
    assertThatThrownBy(() -> objects.presignedGet("exports/shared.csv", Duration.ofDays(7).plusSeconds(1)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot presign object: expiry must be 1 second to 7 days: PT168H1S");
    assertThat(objects.presignedGet("exports/shared.csv", Duration.ofDays(7)).toString()).contains("X-Amz-Expires=604800");
  }

  @Test
  void delete_refusesWarehouseUnlessForced() {
    put("warehouse/x/data/f.parquet", "x", "application/octet-stream", Map.of());
    assertThatThrownBy(() -> objects.delete("warehouse/x/data/f.parquet")).isInstanceOf(ValidationException.class)
        .hasMessage("Cannot delete object: key is under warehouse/ (table data); pass force to delete it anyway: warehouse/x/data/f.parquet");
    assertThat(s3.keys("warehouse/x/")).containsExactly("warehouse/x/data/f.parquet");
    objects.delete("warehouse/x/data/f.parquet", true);
    assertThat(s3.keys("warehouse/x/")).isEmpty();

    put("raw/gone.csv", "x", "text/csv", Map.of());
    objects.delete("raw/gone.csv");
    assertThat(s3.keys("raw/gone.csv")).isEmpty();
    objects.delete("raw/gone.csv"); // deleting a missing object succeeds
    assertThat(s3.gate().seen()).noneMatch(seen -> seen.target().contains("?delete"));
  }

  @Test
  void hostileKeys_areRefusedBeforeAnyRequest() {
    s3.gate().reset();
    assertThatThrownBy(() -> objects.head("../other-bucket/x")).isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot use object key: parent segment: ../other-bucket/x");
    assertThatThrownBy(() -> objects.delete("raw/../warehouse/t/metadata/v1.json"))
        .hasMessage("Cannot use object key: parent segment: raw/../warehouse/t/metadata/v1.json");
    assertThatThrownBy(() -> objects.get("/etc/passwd")).hasMessage("Cannot use object key: leading slash: /etc/passwd");
    assertThatThrownBy(() -> objects.presignedGet("", Duration.ofMinutes(1))).hasMessage("Cannot use object key: empty key: ");
    assertThatThrownBy(() -> objects.list("a//b")).hasMessage("Cannot use object key: empty segment: a//b");
    assertThatThrownBy(() -> objects.stage("../x.csv")).hasMessage("Cannot use object key: parent segment: ../x.csv");
    assertThat(s3.gate().seen()).isEmpty();
  }

  @Test
  void localStore_hasNoObjectBrowser(@TempDir Path local) {
    try (FeatureStore localStore = FeatureStore.openLocal(local)) {
      assertThatThrownBy(localStore::objects).isInstanceOf(dev.featurestore.ValidationException.class)
          .hasMessage("Cannot browse objects: the store is on local disk, not object storage: " + local);
    }
  }

  @Test
  void keyPrefix_confinesTheBrowser(@TempDir Path other) {
    put("outside.csv", "x", "text/csv", Map.of());
    try (FeatureStore team = FeatureStore.builder().root(other)
        .objectStorage(s3.b2ThroughGate().toBuilder().keyPrefix("team-a/").build()).build()) {
      team.objects().stage("t.csv").from(new java.io.ByteArrayInputStream("a\n1\n".getBytes(StandardCharsets.UTF_8))).commit();
      assertThat(s3.keys("team-a/raw/")).containsExactly("team-a/raw/t.csv");
      try (Stream<ObjectSummary> all = team.objects().listAll("")) {
        assertThat(all.map(ObjectSummary::key).collect(Collectors.toList())).containsExactly("raw/t.csv");
      }
    }
  }
}
