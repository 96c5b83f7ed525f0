package dev.featurestore.core.base;

/**
 * Internal: whether Iceberg's Parquet classes take Parquet's own types. Not when
 * iceberg-spark-runtime, which relocates Parquet under {@code org.apache.iceberg.shaded}, is first
 * on the class path, as on a Spark driver: Iceberg's {@code ParquetSchemaUtil}, value readers and
 * writer functions then expect the relocated {@code MessageType}, and the library's own Parquet
 * readers and writers (compiled against Parquet's own types) fail with a linkage error. Each of
 * them checks this and leaves the file to Iceberg's generic reader or writer instead.
 */
public final class IcebergParquet {
  private static final boolean OWN_TYPES = ownTypes();

  private IcebergParquet() {}

  /** True when the library's direct Parquet readers and writers can work with Iceberg's Parquet classes. */
  public static boolean takesParquetTypes() {
    return OWN_TYPES;
  }

  private static boolean ownTypes() {
    try {
      Class.forName("org.apache.iceberg.shaded.org.apache.parquet.schema.MessageType", false,
          org.apache.iceberg.parquet.Parquet.class.getClassLoader());
      return false;
    } catch (ClassNotFoundException | LinkageError e) {
      return true;
    }
  }
}
