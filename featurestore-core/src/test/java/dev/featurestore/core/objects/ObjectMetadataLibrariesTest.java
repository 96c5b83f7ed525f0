package dev.featurestore.core.objects;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What metadata() does when the optional libraries are absent or a PDF is too large. */
class ObjectMetadataLibrariesTest {
  private static MediaSummaries.Result read(MediaSummaries media, String key, String contentType, byte[] content) {
    try (MediaSummaries.Reading reading = media.start(key, contentType, content.length)) {
      for (int i = 0; i < content.length; i += 5) { // small chunks: the kind is decided across reads
        reading.accept(content, i, Math.min(5, content.length - i));
      }
      return reading.finish();
    }
  }

  @Test
  void librariesArePresentInTests_andAnUnknownMarkerIsAbsent() {
    assertThat(OptionalLibrary.METADATA_EXTRACTOR).isTrue();
    assertThat(OptionalLibrary.PDFBOX).isTrue();
    assertThat(OptionalLibrary.present("com.example.NoSuchLibrary")).isFalse();
  }

  @Test
  void missingLibraries_leaveSummariesEmptyWithANote() {
    MediaSummaries none = new MediaSummaries(false, false, MediaSummaries.IMAGE_PREFIX, MediaSummaries.PDF_CAP);
    MediaSummaries.Result pdf = read(none, "raw/a.pdf", "binary/octet-stream", "%PDF-1.7\n".getBytes(StandardCharsets.US_ASCII));
    assertThat(pdf.pdf()).isEmpty();
    assertThat(pdf.notes()).containsExactly("Cannot read PDF metadata: PDFBox is not on the classpath: raw/a.pdf");

    MediaSummaries.Result gif = read(none, "raw/a.gif", "image/gif", "GIF89a".getBytes(StandardCharsets.US_ASCII));
    assertThat(gif.image()).isEmpty();
    assertThat(gif.notes()).containsExactly("Cannot read image metadata: metadata-extractor is not on the classpath: raw/a.gif");
  }

  @Test
  void pdfOverTheCap_isSkippedWithANote() {
    MediaSummaries small = new MediaSummaries(true, true, MediaSummaries.IMAGE_PREFIX, 16);
    MediaSummaries.Result pdf = read(small, "raw/big.pdf", "application/pdf",
        "%PDF-1.7\n0123456789abcdef\n".getBytes(StandardCharsets.US_ASCII));
    assertThat(pdf.pdf()).isEmpty();
    assertThat(pdf.notes()).containsExactly("Cannot read PDF metadata: object is larger than 16 bytes: raw/big.pdf");
  }

  @Test
  void kind_magicBytesFirst_thenContentType() {
    assertThat(MediaSummaries.kind(new byte[] {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, 0}, 4, "application/pdf"))
        .isEqualTo(MediaSummaries.Kind.IMAGE);
    byte[] webp = "RIFF\0\0\0\0WEBP".getBytes(StandardCharsets.US_ASCII);
    assertThat(MediaSummaries.kind(webp, webp.length, null)).isEqualTo(MediaSummaries.Kind.IMAGE);
    assertThat(MediaSummaries.kind(new byte[] {'M', 'M', 0, 0x2A}, 4, null)).isEqualTo(MediaSummaries.Kind.IMAGE);
    assertThat(MediaSummaries.kind(new byte[] {'x'}, 1, "Application/PDF")).isEqualTo(MediaSummaries.Kind.PDF);
    assertThat(MediaSummaries.kind(new byte[] {'x'}, 1, "text/plain")).isEqualTo(MediaSummaries.Kind.OTHER);
  }
}
