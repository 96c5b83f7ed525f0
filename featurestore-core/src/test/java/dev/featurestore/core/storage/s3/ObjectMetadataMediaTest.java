package dev.featurestore.core.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.ObjectBrowser;
import dev.featurestore.ObjectMetadata;
import dev.featurestore.ObjectMetadata.ImageSummary;
import dev.featurestore.ObjectMetadata.PdfSummary;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Calendar;
import java.util.GregorianCalendar;
import java.util.Map;
import java.util.Optional;
import java.util.TimeZone;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDDocumentInformation;
import org.apache.pdfbox.pdmodel.PDPage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;

/** Image and PDF summaries in {@code metadata()}, on the B2 profile through the gate. */
class ObjectMetadataMediaTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir static Path root;
  static FeatureStore store;
  static ObjectBrowser objects;

  @BeforeAll
  static void open() {
    store = FeatureStore.builder().root(root).objectStorage(s3.b2ThroughGate()).build();
    objects = store.objects();
  }

  @AfterAll
  static void close() {
    store.close();
  }

  private static void put(String key, byte[] content, String contentType) {
    s3.direct().putObject(b -> b.bucket(S3TestServer.BUCKET).key(key).contentType(contentType),
        RequestBody.fromBytes(content));
  }

  private static byte[] image(String format, int width, int height) throws Exception {
    BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertThat(ImageIO.write(image, format, out)).isTrue();
    return out.toByteArray();
  }

  @Test
  void metadata_png_hasDimensionsAndFormat() throws Exception {
    put("raw/pic.png", image("png", 40, 30), "image/png");
    ObjectMetadata meta = objects.metadata("raw/pic.png");
    assertThat(meta.image()).contains(new ImageSummary(40, 30, "PNG", "image/png", Map.of()));
    assertThat(meta.pdf()).isEmpty();
    assertThat(meta.notes()).isEmpty();
  }

  @Test
  void metadata_pngAndGifLargerThanThePrefix_areReadFromTheFirst256KiB() throws Exception {
    BufferedImage noise = new BufferedImage(600, 600, BufferedImage.TYPE_INT_RGB);
    java.util.Random random = new java.util.Random(7);
    for (int y = 0; y < 600; y++) {
      for (int x = 0; x < 600; x++) {
        noise.setRGB(x, y, random.nextInt());
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ImageIO.write(noise, "png", out);
    assertThat(out.size()).isGreaterThan(256 * 1024);
    put("raw/noise.png", out.toByteArray(), "image/png");
    ObjectMetadata meta = objects.metadata("raw/noise.png");
    assertThat(meta.notes()).isEmpty();
    assertThat(meta.image()).contains(new ImageSummary(600, 600, "PNG", "image/png", Map.of()));

    out.reset();
    ImageIO.write(noise, "gif", out);
    assertThat(out.size()).isGreaterThan(256 * 1024);
    put("raw/noise.gif", out.toByteArray(), "image/gif");
    ObjectMetadata gif = objects.metadata("raw/noise.gif");
    assertThat(gif.notes()).isEmpty();
    assertThat(gif.image()).contains(new ImageSummary(600, 600, "GIF", "image/gif", Map.of()));
  }

  @Test
  void metadata_jpegWithExif_hasDimensionsAndExifTags() throws Exception {
    byte[] jpeg = withExif(image("jpg", 64, 48), "Canon", "EOS R5", 6, "2026:11:30 12:34:56");
    put("raw/photo.jpg", jpeg, "application/octet-stream"); // detected by magic bytes, not the content type
    ObjectMetadata meta = objects.metadata("raw/photo.jpg");
    assertThat(meta.image()).contains(new ImageSummary(64, 48, "JPEG", "image/jpeg", Map.of(
        "Make", "Canon", "Model", "EOS R5", "Orientation", "6", "DateTimeOriginal", "2026:11:30 12:34:56")));
    assertThat(meta.notes()).isEmpty();
  }

  @Test
  void metadata_pdf_hasPageCountAndDocumentInfo() throws Exception {
    Calendar created = new GregorianCalendar(TimeZone.getTimeZone("UTC"));
    created.setTimeInMillis(Instant.parse("2026-11-30T10:00:00Z").toEpochMilli());
    byte[] pdf;
    try (PDDocument document = new PDDocument()) {
      for (int i = 0; i < 3; i++) {
        document.addPage(new PDPage());
      }
      PDDocumentInformation info = document.getDocumentInformation();
      info.setTitle("Feature report");
      info.setAuthor("Ada");
      info.setSubject("Q4");
      info.setCreator("featurestore tests");
      info.setProducer("PDFBox");
      info.setCreationDate(created);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      document.save(out);
      pdf = out.toByteArray();
    }
    put("raw/report.pdf", pdf, "application/pdf");
    ObjectMetadata meta = objects.metadata("raw/report.pdf");
    assertThat(meta.pdf()).contains(new PdfSummary(3, Optional.of("Feature report"), Optional.of("Ada"),
        Optional.of("Q4"), Optional.of("featurestore tests"), Optional.of("PDFBox"),
        Optional.of(Instant.parse("2026-11-30T10:00:00Z"))));
    assertThat(meta.image()).isEmpty();
    assertThat(meta.notes()).isEmpty();
    try (Stream<Path> left = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      assertThat(left.filter(p -> p.getFileName().toString().startsWith("featurestore-pdf-"))).isEmpty();
    }
  }

  @Test
  void metadata_corruptPdfAndImage_haveEmptySummariesAndANote() {
    put("raw/bad.pdf", "%PDF-1.7\nthis is not a PDF\n".getBytes(StandardCharsets.US_ASCII), "application/pdf");
    ObjectMetadata pdf = objects.metadata("raw/bad.pdf");
    assertThat(pdf.pdf()).isEmpty();
    assertThat(pdf.notes()).singleElement().asString()
        .startsWith("Cannot read PDF metadata: ").endsWith(": raw/bad.pdf");

    byte[] truncated = {(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 'I', 'H'};
    put("raw/bad.png", truncated, "image/png");
    ObjectMetadata png = objects.metadata("raw/bad.png");
    assertThat(png.image()).isEmpty();
    assertThat(png.notes()).singleElement().asString()
        .startsWith("Cannot read image metadata: ").endsWith(": raw/bad.png");
  }

  @Test
  void metadata_otherObject_hasNeitherSummary() {
    put("raw/notes.txt", "just text\n".getBytes(StandardCharsets.UTF_8), "text/plain");
    ObjectMetadata meta = objects.metadata("raw/notes.txt");
    assertThat(meta.image()).isEmpty();
    assertThat(meta.pdf()).isEmpty();
    assertThat(meta.notes()).isEmpty();
  }

  /** Inserts an APP1 Exif segment (big-endian TIFF: IFD0 with Make, Model, Orientation; Exif IFD with DateTimeOriginal). */
  static byte[] withExif(byte[] jpeg, String make, String model, int orientation, String dateTimeOriginal) {
    byte[] makeBytes = ascii(make);
    byte[] modelBytes = ascii(model);
    byte[] dateBytes = ascii(dateTimeOriginal);
    int ifd0 = 8;
    int ifd0Size = 2 + 4 * 12 + 4;
    int exifIfd = ifd0 + ifd0Size;
    int exifIfdSize = 2 + 12 + 4;
    int data = exifIfd + exifIfdSize;
    ByteBuffer tiff = ByteBuffer.allocate(data + makeBytes.length + modelBytes.length + dateBytes.length);
    tiff.put(new byte[] {'M', 'M', 0, 0x2A}).putInt(ifd0);
    tiff.putShort((short) 4);
    entry(tiff, 0x010F, 2, makeBytes.length, data);
    entry(tiff, 0x0110, 2, modelBytes.length, data + makeBytes.length);
    tiff.putShort((short) 0x0112).putShort((short) 3).putInt(1).putShort((short) orientation).putShort((short) 0);
    entry(tiff, 0x8769, 4, 1, exifIfd);
    tiff.putInt(0);
    tiff.putShort((short) 1);
    entry(tiff, 0x9003, 2, dateBytes.length, data + makeBytes.length + modelBytes.length);
    tiff.putInt(0);
    tiff.put(makeBytes).put(modelBytes).put(dateBytes);
    byte[] body = tiff.array();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(jpeg, 0, 2); // SOI
    int length = 2 + 6 + body.length;
    out.write(0xFF);
    out.write(0xE1);
    out.write(length >> 8);
    out.write(length & 0xFF);
    out.writeBytes("Exif\0\0".getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(body);
    out.write(jpeg, 2, jpeg.length - 2);
    return out.toByteArray();
  }

  private static void entry(ByteBuffer b, int tag, int type, int count, int valueOrOffset) {
    b.putShort((short) tag).putShort((short) type).putInt(count).putInt(valueOrOffset);
  }

  private static byte[] ascii(String s) {
    return (s + "\0").getBytes(StandardCharsets.US_ASCII);
  }
}
