package dev.featurestore.cdc;

/**
 * How a current-state table applies updates and deletes. Chosen when the pipeline creates the
 * table (stored as the table property {@value #PROPERTY}); an existing table keeps its layout
 * whatever the builder says (a table without the property, created before layouts existed, is
 * {@link #COPY_ON_WRITE}).
 */
public enum CurrentStateLayout {
  /**
   * The default for new tables: Iceberg format 3, unpartitioned. An update appends the new
   * version and marks the old row deleted in the old file's deletion vector; a delete only marks.
   * Work per commit follows the batch, not the table (one data file and one Puffin file per
   * commit); reads apply the vectors until compaction folds them in.
   */
  MERGE_ON_READ("merge-on-read"),
  /**
   * Bucketed on doc id; a batch rewrites the data files of every bucket it touches, so reads see
   * no delete files, and a batch spread over all buckets rewrites the whole table. For small
   * tables.
   */
  COPY_ON_WRITE("copy-on-write");

  /** The table property holding the layout of a current-state table. */
  public static final String PROPERTY = "featurestore.cdc.current-state.layout";

  private final String value;

  CurrentStateLayout(String value) {
    this.value = value;
  }

  /** The property value: {@code merge-on-read} or {@code copy-on-write}. */
  public String value() {
    return value;
  }

  /** The layout a table property names; a missing or unknown value is {@link #COPY_ON_WRITE} (tables made before layouts). */
  static CurrentStateLayout ofProperty(String value) {
    return MERGE_ON_READ.value.equals(value) ? MERGE_ON_READ : COPY_ON_WRITE;
  }
}
