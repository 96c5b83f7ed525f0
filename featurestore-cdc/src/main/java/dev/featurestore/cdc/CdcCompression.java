package dev.featurestore.cdc;

import java.util.Locale;

/** Parquet compression of the data files a pipeline writes. */
public enum CdcCompression {
  ZSTD,
  SNAPPY,
  GZIP,
  NONE;

  /** The value of Iceberg's {@code write.parquet.compression-codec}. */
  String codec() {
    return this == NONE ? "uncompressed" : name().toLowerCase(Locale.ROOT);
  }
}
