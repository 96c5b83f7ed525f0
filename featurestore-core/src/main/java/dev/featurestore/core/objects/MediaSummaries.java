package dev.featurestore.core.objects;

import dev.featurestore.ObjectMetadata.ImageSummary;
import dev.featurestore.ObjectMetadata.PdfSummary;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Image and PDF summaries, read from the bytes {@code metadata()} already streams for the SHA-256,
 * so no object is fetched twice: an image's first {@link #imagePrefix} bytes are kept in memory; a
 * PDF (PDFBox needs the whole file) is copied to a temporary file, up to {@link #pdfCap} bytes, and
 * deleted afterwards. Whatever goes wrong here becomes a note, never an exception: a summary is a
 * bonus, not the point of the call. Uses no optional library itself.
 */
final class MediaSummaries {
  static final int IMAGE_PREFIX = 256 * 1024;
  static final long PDF_CAP = 64L * 1024 * 1024;
  static final MediaSummaries DEFAULT =
      new MediaSummaries(OptionalLibrary.METADATA_EXTRACTOR, OptionalLibrary.PDFBOX, IMAGE_PREFIX, PDF_CAP);

  enum Kind { IMAGE, PDF, OTHER }

  record Result(Optional<ImageSummary> image, Optional<PdfSummary> pdf, List<String> notes) {}

  private final boolean images;
  private final boolean pdfs;
  private final int imagePrefix;
  private final long pdfCap;

  MediaSummaries(boolean images, boolean pdfs, int imagePrefix, long pdfCap) {
    this.images = images;
    this.pdfs = pdfs;
    this.imagePrefix = imagePrefix;
    this.pdfCap = pdfCap;
  }

  /** A sink for one object's bytes, in order. Close it to delete the temporary file. */
  Reading start(String key, String contentType, long size) {
    return new Reading(key, contentType, size);
  }

  /** Magic bytes first; the content type only when the bytes name nothing. */
  static Kind kind(byte[] b, int n, String contentType) {
    if (starts(b, n, "%PDF-".getBytes(StandardCharsets.US_ASCII))) {
      return Kind.PDF;
    }
    if (starts(b, n, 0xFF, 0xD8, 0xFF) // JPEG
        || starts(b, n, 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A)
        || starts(b, n, 'G', 'I', 'F', '8')
        || starts(b, n, 'I', 'I', 0x2A, 0x00) || starts(b, n, 'M', 'M', 0x00, 0x2A) // TIFF
        || (starts(b, n, 'R', 'I', 'F', 'F') && n >= 12 && b[8] == 'W' && b[9] == 'E' && b[10] == 'B' && b[11] == 'P')) {
      return Kind.IMAGE;
    }
    String type = contentType == null ? "" : contentType.toLowerCase(Locale.ROOT);
    if (type.startsWith("application/pdf")) {
      return Kind.PDF;
    }
    return type.startsWith("image/") ? Kind.IMAGE : Kind.OTHER;
  }

  private static boolean starts(byte[] b, int n, int... magic) {
    if (n < magic.length) {
      return false;
    }
    for (int i = 0; i < magic.length; i++) {
      if ((b[i] & 0xFF) != magic[i]) {
        return false;
      }
    }
    return true;
  }

  private static boolean starts(byte[] b, int n, byte[] magic) {
    return n >= magic.length && Arrays.equals(b, 0, magic.length, magic, 0, magic.length);
  }

  final class Reading implements AutoCloseable {
    private static final int KIND_BYTES = 12; // enough for every magic above (WebP's is the longest)

    private final String key;
    private final String contentType;
    private final long size;
    private final byte[] prefix = new byte[imagePrefix];
    private final List<String> notes = new ArrayList<>();
    private int prefixLength;
    private long read;
    private Kind kind;
    private Path pdfFile;
    private OutputStream pdfOut;
    private long pdfLength;

    private Reading(String key, String contentType, long size) {
      this.key = key;
      this.contentType = contentType;
      this.size = size;
    }

    void accept(byte[] buf, int off, int n) {
      read += n;
      int keep = Math.min(n, prefix.length - prefixLength);
      System.arraycopy(buf, off, prefix, prefixLength, keep);
      prefixLength += keep;
      if (kind == null && prefixLength >= Math.min(KIND_BYTES, prefix.length)) {
        decide();
        if (pdfOut != null) {
          writePdf(prefix, 0, prefixLength); // the bytes seen before the decision
        }
        if (keep < n) {
          writePdf(buf, off + keep, n - keep);
        }
      } else if (pdfOut != null) {
        writePdf(buf, off, n);
      }
    }

    /** The summaries, once every byte was accepted. */
    Result finish() {
      if (kind == null) {
        decide();
        if (pdfOut != null) {
          writePdf(prefix, 0, prefixLength);
        }
      }
      Optional<ImageSummary> image = Optional.empty();
      Optional<PdfSummary> pdf = Optional.empty();
      if (kind == Kind.IMAGE && images) {
        try {
          image = Optional.of(ImageSummaries.read(prefix, prefixLength, read > prefixLength));
        } catch (Exception | LinkageError e) {
          notes.add("Cannot read image metadata: " + reason(e) + ": " + key);
        }
      }
      if (pdfOut != null) {
        try {
          pdfOut.close();
          pdfOut = null;
          pdf = Optional.of(PdfSummaries.read(pdfFile));
        } catch (Exception | LinkageError e) {
          notes.add("Cannot read PDF metadata: " + reason(e) + ": " + key);
        }
      }
      return new Result(image, pdf, notes);
    }

    private void decide() {
      kind = kind(prefix, prefixLength, contentType);
      if (kind == Kind.IMAGE && !images) {
        notes.add("Cannot read image metadata: metadata-extractor is not on the classpath: " + key);
      } else if (kind == Kind.PDF && !pdfs) {
        notes.add("Cannot read PDF metadata: PDFBox is not on the classpath: " + key);
      } else if (kind == Kind.PDF && size > pdfCap) {
        notes.add("Cannot read PDF metadata: object is larger than " + pdfCap + " bytes: " + key);
      } else if (kind == Kind.PDF) {
        try {
          pdfFile = Files.createTempFile("featurestore-pdf-", ".pdf");
          pdfOut = Files.newOutputStream(pdfFile);
        } catch (IOException e) {
          notes.add("Cannot read PDF metadata: cannot create a temporary file: " + e.getMessage() + ": " + key);
          close();
        }
      }
    }

    private void writePdf(byte[] buf, int off, int n) {
      if (pdfOut == null) {
        return;
      }
      pdfLength += n;
      try {
        if (pdfLength > pdfCap) { // the object grew after HEAD
          throw new IOException("object is larger than " + pdfCap + " bytes");
        }
        pdfOut.write(buf, off, n);
      } catch (IOException e) {
        notes.add("Cannot read PDF metadata: " + e.getMessage() + ": " + key);
        close();
      }
    }

    private String reason(Throwable e) {
      return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    @Override
    public void close() {
      if (pdfOut != null) {
        try {
          pdfOut.close();
        } catch (IOException e) {
          // deleting the file below is what matters
        }
        pdfOut = null;
      }
      if (pdfFile != null) {
        try {
          Files.deleteIfExists(pdfFile);
        } catch (IOException e) {
          pdfFile.toFile().deleteOnExit();
        }
        pdfFile = null;
      }
    }
  }
}
