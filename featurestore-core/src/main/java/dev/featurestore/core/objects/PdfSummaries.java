package dev.featurestore.core.objects;

import dev.featurestore.ObjectMetadata.PdfSummary;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Calendar;
import java.util.Optional;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDDocumentInformation;

/** Reads a PDF summary with PDFBox. Only loaded when {@link OptionalLibrary#PDFBOX}. */
final class PdfSummaries {
  private PdfSummaries() {}

  /** @throws IOException if PDFBox cannot parse the file (corrupt, or encrypted with a user password) */
  static PdfSummary read(Path file) throws IOException {
    try (PDDocument document = Loader.loadPDF(file.toFile())) {
      PDDocumentInformation info = document.getDocumentInformation();
      Calendar created = info.getCreationDate();
      return new PdfSummary(document.getNumberOfPages(), text(info.getTitle()), text(info.getAuthor()),
          text(info.getSubject()), text(info.getCreator()), text(info.getProducer()),
          Optional.ofNullable(created).map(Calendar::toInstant));
    }
  }

  private static Optional<String> text(String value) {
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(value);
  }
}
