package dev.featurestore;


import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * An object's metadata, including what reading it tells: its SHA-256 and, for Parquet, its schema
 * and row count; for images, dimensions and EXIF tags; for PDFs, page count and document info.
 *
 * <p>Image and PDF summaries come from optional libraries (metadata-extractor, PDFBox) that a
 * user adds to the classpath; without them, or when the content does not parse, the summary is
 * empty and {@link #notes()} says why. A summary that cannot be read never fails the call.
 *
 * @param head what the HEAD request told
 * @param sha256 the SHA-256 of the content, lower-case hex, computed by streaming the object
 * @param parquet the Parquet footer's summary, when the object is a Parquet file
 * @param image the image summary, when the object is a readable image and metadata-extractor is present
 * @param pdf the PDF summary, when the object is a readable PDF and PDFBox is present
 * @param notes why a summary the content looked like it had is missing (library absent, object too
 *     large, content not readable); empty when nothing was skipped
 */
public record ObjectMetadata(ObjectHead head, String sha256, Optional<ParquetSummary> parquet,
    Optional<ImageSummary> image, Optional<PdfSummary> pdf, List<String> notes) {

  public ObjectMetadata {
    InvalidArgumentException.requireNonNull(head, "create object metadata", "head");
    InvalidArgumentException.requireNonNull(sha256, "create object metadata", "sha256");
    InvalidArgumentException.requireNonNull(parquet, "create object metadata", "parquet");
    InvalidArgumentException.requireNonNull(image, "create object metadata", "image");
    InvalidArgumentException.requireNonNull(pdf, "create object metadata", "pdf");
    notes = List.copyOf(notes);
  }

  /** Metadata without image or PDF summaries. */
  public ObjectMetadata(ObjectHead head, String sha256, Optional<ParquetSummary> parquet) {
    this(head, sha256, parquet, Optional.empty(), Optional.empty(), List.of());
  }

  /**
   * What a Parquet footer says.
   *
   * @param schema the Parquet schema, as Parquet prints it
   * @param columns the top-level column names
   * @param rowCount rows in the file
   * @param rowGroups row groups in the file
   */
  public record ParquetSummary(String schema, List<String> columns, long rowCount, int rowGroups) {
    public ParquetSummary {
      columns = List.copyOf(columns);
    }
  }

  /**
   * What an image's headers say (read from the first bytes of the object only).
   *
   * @param width width in pixels
   * @param height height in pixels
   * @param format the detected format, e.g. {@code JPEG}, {@code PNG}, {@code GIF}, {@code WebP}, {@code TIFF}
   * @param mimeType the format's MIME type, e.g. {@code image/jpeg}
   * @param exif EXIF tags found, sorted by name, raw values as strings: {@code Make},
   *     {@code Model}, {@code Orientation}, {@code DateTimeOriginal}, {@code GPSLatitude},
   *     {@code GPSLongitude} (decimal degrees); empty when the image has none
   */
  public record ImageSummary(int width, int height, String format, String mimeType, Map<String, String> exif) {
    public ImageSummary {
      InvalidArgumentException.requireNonNull(format, "create image summary", "format");
      InvalidArgumentException.requireNonNull(mimeType, "create image summary", "mimeType");
      exif = Collections.unmodifiableMap(new TreeMap<>(exif));
    }
  }

  /**
   * What a PDF's document information dictionary says.
   *
   * @param pages the page count
   * @param title the title, if set
   * @param author the author, if set
   * @param subject the subject, if set
   * @param creator the application that created the original document, if set
   * @param producer the application that produced the PDF, if set
   * @param created the creation date, if set
   */
  public record PdfSummary(int pages, Optional<String> title, Optional<String> author, Optional<String> subject,
      Optional<String> creator, Optional<String> producer, Optional<Instant> created) {
    public PdfSummary {
      InvalidArgumentException.requireNonNull(title, "create PDF summary", "title");
      InvalidArgumentException.requireNonNull(author, "create PDF summary", "author");
      InvalidArgumentException.requireNonNull(subject, "create PDF summary", "subject");
      InvalidArgumentException.requireNonNull(creator, "create PDF summary", "creator");
      InvalidArgumentException.requireNonNull(producer, "create PDF summary", "producer");
      InvalidArgumentException.requireNonNull(created, "create PDF summary", "created");
    }
  }
}
