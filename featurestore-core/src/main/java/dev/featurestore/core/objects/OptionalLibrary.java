package dev.featurestore.core.objects;

/**
 * Whether an optional library is on the classpath, checked once per library by loading a marker
 * class without initializing it. The readers that use a library live in their own package-private
 * classes, so nothing loads a library class unless its check passed.
 */
final class OptionalLibrary {
  /** metadata-extractor: image dimensions and EXIF. */
  static final boolean METADATA_EXTRACTOR = present("com.drew.imaging.ImageMetadataReader");
  /** Apache PDFBox 3: PDF page count and document info. */
  static final boolean PDFBOX = present("org.apache.pdfbox.Loader");

  private OptionalLibrary() {}

  static boolean present(String markerClass) {
    try {
      Class.forName(markerClass, false, OptionalLibrary.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
