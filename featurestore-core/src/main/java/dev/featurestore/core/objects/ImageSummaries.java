package dev.featurestore.core.objects;

import com.drew.imaging.ImageMetadataReader;
import com.drew.imaging.ImageProcessingException;
import com.drew.lang.GeoLocation;
import com.drew.metadata.Directory;
import com.drew.metadata.Metadata;
import com.drew.metadata.exif.ExifDirectoryBase;
import com.drew.metadata.exif.ExifIFD0Directory;
import com.drew.metadata.exif.ExifSubIFDDirectory;
import com.drew.metadata.exif.GpsDirectory;
import com.drew.metadata.file.FileTypeDirectory;
import com.drew.metadata.gif.GifHeaderDirectory;
import com.drew.metadata.jpeg.JpegDirectory;
import com.drew.metadata.png.PngDirectory;
import com.drew.metadata.webp.WebpDirectory;
import dev.featurestore.ObjectMetadata.ImageSummary;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/** Reads an image summary with metadata-extractor. Only loaded when {@link OptionalLibrary#METADATA_EXTRACTOR}. */
final class ImageSummaries {
  private ImageSummaries() {}

  /**
   * Reads dimensions, format and EXIF from the first {@code length} bytes of an image.
   *
   * @param truncated whether the image continues after these bytes
   * @throws IOException if the bytes are not an image metadata-extractor reads, or have no dimensions
   */
  static ImageSummary read(byte[] bytes, int length, boolean truncated) throws IOException {
    if (truncated && isPng(bytes, length)) {
      // metadata-extractor reads every PNG chunk and fails on a cut one; the headers come first.
      bytes = endPngAfterLastWholeChunk(bytes, length);
      length = bytes.length;
    }
    Metadata metadata;
    try {
      metadata = ImageMetadataReader.readMetadata(new ByteArrayInputStream(bytes, 0, length), length);
    } catch (ImageProcessingException e) {
      throw new IOException(e.getMessage(), e);
    }
    FileTypeDirectory type = metadata.getFirstDirectoryOfType(FileTypeDirectory.class);
    if (type == null || type.getString(FileTypeDirectory.TAG_DETECTED_FILE_TYPE_NAME) == null) {
      throw new IOException("unknown image format");
    }
    int[] size = dimensions(metadata);
    if (size == null) {
      throw new IOException("no image dimensions found");
    }
    String mime = type.getString(FileTypeDirectory.TAG_DETECTED_FILE_MIME_TYPE);
    return new ImageSummary(size[0], size[1], type.getString(FileTypeDirectory.TAG_DETECTED_FILE_TYPE_NAME),
        mime == null ? "application/octet-stream" : mime, exif(metadata));
  }

  private static final byte[] PNG_MAGIC = {(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  private static final byte[] PNG_IEND = {0, 0, 0, 0, 'I', 'E', 'N', 'D', (byte) 0xAE, 0x42, 0x60, (byte) 0x82};

  private static boolean isPng(byte[] bytes, int length) {
    return length >= PNG_MAGIC.length && Arrays.equals(bytes, 0, PNG_MAGIC.length, PNG_MAGIC, 0, PNG_MAGIC.length);
  }

  private static byte[] endPngAfterLastWholeChunk(byte[] bytes, int length) {
    int end = PNG_MAGIC.length;
    while (end + 12 <= length) {
      long chunk = 12L + (((bytes[end] & 0xFFL) << 24) | ((bytes[end + 1] & 0xFF) << 16)
          | ((bytes[end + 2] & 0xFF) << 8) | (bytes[end + 3] & 0xFF));
      if (end + chunk > length) {
        break;
      }
      end += (int) chunk;
    }
    byte[] png = Arrays.copyOf(bytes, end + PNG_IEND.length);
    System.arraycopy(PNG_IEND, 0, png, end, PNG_IEND.length);
    return png;
  }

  private static int[] dimensions(Metadata metadata) {
    int[] size;
    if ((size = dimensions(metadata, JpegDirectory.class, JpegDirectory.TAG_IMAGE_WIDTH, JpegDirectory.TAG_IMAGE_HEIGHT)) != null
        || (size = dimensions(metadata, PngDirectory.class, PngDirectory.TAG_IMAGE_WIDTH, PngDirectory.TAG_IMAGE_HEIGHT)) != null
        || (size = dimensions(metadata, GifHeaderDirectory.class, GifHeaderDirectory.TAG_IMAGE_WIDTH, GifHeaderDirectory.TAG_IMAGE_HEIGHT)) != null
        || (size = dimensions(metadata, WebpDirectory.class, WebpDirectory.TAG_IMAGE_WIDTH, WebpDirectory.TAG_IMAGE_HEIGHT)) != null) {
      return size;
    }
    // TIFF (and raw formats built on it) keep dimensions in IFD0.
    return dimensions(metadata, ExifIFD0Directory.class, ExifDirectoryBase.TAG_IMAGE_WIDTH, ExifDirectoryBase.TAG_IMAGE_HEIGHT);
  }

  private static <T extends Directory> int[] dimensions(Metadata metadata, Class<T> type, int widthTag, int heightTag) {
    for (T directory : metadata.getDirectoriesOfType(type)) {
      Integer width = directory.getInteger(widthTag);
      Integer height = directory.getInteger(heightTag);
      if (width != null && height != null) {
        return new int[] {width, height};
      }
    }
    return null;
  }

  private static Map<String, String> exif(Metadata metadata) {
    Map<String, String> tags = new LinkedHashMap<>();
    ExifIFD0Directory ifd0 = metadata.getFirstDirectoryOfType(ExifIFD0Directory.class);
    if (ifd0 != null) {
      put(tags, "Make", ifd0, ExifDirectoryBase.TAG_MAKE);
      put(tags, "Model", ifd0, ExifDirectoryBase.TAG_MODEL);
      put(tags, "Orientation", ifd0, ExifDirectoryBase.TAG_ORIENTATION);
    }
    ExifSubIFDDirectory sub = metadata.getFirstDirectoryOfType(ExifSubIFDDirectory.class);
    if (sub != null) {
      put(tags, "DateTimeOriginal", sub, ExifDirectoryBase.TAG_DATETIME_ORIGINAL);
    }
    GpsDirectory gps = metadata.getFirstDirectoryOfType(GpsDirectory.class);
    GeoLocation location = gps == null ? null : gps.getGeoLocation();
    if (location != null && !location.isZero()) {
      tags.put("GPSLatitude", Double.toString(location.getLatitude()));
      tags.put("GPSLongitude", Double.toString(location.getLongitude()));
    }
    return tags;
  }

  private static void put(Map<String, String> tags, String name, Directory directory, int tag) {
    String value = directory.getString(tag);
    if (value != null && !value.isBlank()) {
      tags.put(name, value.strip());
    }
  }
}
