package dev.featurestore.core.ingest;

import dev.featurestore.core.base.DataFileCloses;
import dev.featurestore.core.base.HadoopDefaultsHidden;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingDataWriter;

/**
 * Routes rows to one rolling data writer per partition (what Iceberg's {@code FanoutDataWriter}
 * does), with the partition computed by {@link PartitionFunction} and the writer found by a plain
 * hash lookup on the partition values (Iceberg's fanout wraps every row's key in a thread-local
 * {@code StructLikeWrapper} and compares it field by field through type comparators). The writer
 * of the previous row is tried first: sorted or clustered input never hashes. Files are opened and
 * closed under {@link HadoopDefaultsHidden} (Iceberg's Parquet writer makes a Hadoop {@code
 * Configuration} per file), and on a bucket closed together ({@link DataFileCloses}). Not
 * thread-safe.
 */
final class PartitionedFileWriter<T extends StructLike> {
  private final FileWriterFactory<T> writers;
  private final OutputFileFactory files;
  private final FileIO io;
  private final long targetFileSize;
  private final PartitionSpec spec;
  private final PartitionFunction partitioner;
  private final boolean parallelCloses;
  // Iceberg opens data files inside write and closes them in finish: both run under this loader
  private final ClassLoader loader = HadoopDefaultsHidden.forCurrentThread();
  private final Map<Object, RollingDataWriter<T>> open = new HashMap<>();
  private final List<RollingDataWriter<T>> order = new ArrayList<>();
  private RollingDataWriter<T> unpartitioned;
  private Object lastKey;
  private RollingDataWriter<T> lastWriter;
  private boolean closed;

  /**
   * @param partitioner null for an unpartitioned spec
   * @param parallelCloses close the files together (on a bucket: {@link DataFileCloses#inParallel})
   */
  PartitionedFileWriter(FileWriterFactory<T> writers, OutputFileFactory files, FileIO io, long targetFileSize,
      PartitionSpec spec, PartitionFunction partitioner, boolean parallelCloses) {
    this.writers = writers;
    this.files = files;
    this.io = io;
    this.targetFileSize = targetFileSize;
    this.spec = spec;
    this.partitioner = spec.isUnpartitioned() ? null : partitioner;
    this.parallelCloses = parallelCloses;
  }

  void write(T row) {
    ClassLoader previous = HadoopDefaultsHidden.enter(loader);
    try {
      route(row);
    } finally {
      HadoopDefaultsHidden.exit(previous);
    }
  }

  private void route(T row) {
    if (partitioner == null) {
      if (unpartitioned == null) {
        unpartitioned = new RollingDataWriter<>(writers, files, io, targetFileSize, spec, null);
        order.add(unpartitioned);
      }
      unpartitioned.write(row);
      return;
    }
    partitioner.partition(row);
    Object key = key();
    RollingDataWriter<T> writer;
    if (lastWriter != null && lastKey.equals(key)) {
      writer = lastWriter;
    } else {
      writer = open.get(key);
      if (writer == null) {
        writer = newWriter(key);
      }
      lastKey = key;
      lastWriter = writer;
    }
    writer.write(row);
  }

  /** The partition values of the last row as a hash key: the value itself for one field, else a list. */
  private Object key() {
    int n = partitioner.size();
    if (n == 1) {
      Object value = partitioner.value(0);
      return value == null ? NullKey.INSTANCE : value;
    }
    Object[] values = new Object[n];
    for (int i = 0; i < n; i++) {
      values[i] = partitioner.value(i);
    }
    return Arrays.asList(values);
  }

  private RollingDataWriter<T> newWriter(Object key) {
    PartitionData partition = new PartitionData(spec.partitionType());
    for (int i = 0; i < partitioner.size(); i++) {
      partition.set(i, partitioner.value(i));
    }
    RollingDataWriter<T> writer = new RollingDataWriter<>(writers, files, io, targetFileSize, spec, partition);
    open.put(key, writer);
    order.add(writer);
    return writer;
  }

  /** Closes every open file and returns the data files written. */
  List<DataFile> finish() {
    closed = true;
    try {
      return close();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot close data files: " + e.getMessage(), e);
    }
  }

  /** Closes quietly after a failure; the caller deletes the files through the tracking FileIO. */
  void abort() {
    if (closed) {
      return;
    }
    closed = true;
    ClassLoader previous = HadoopDefaultsHidden.enter(loader);
    try {
      for (RollingDataWriter<T> writer : order) {
        try {
          writer.close();
        } catch (IOException | RuntimeException e) {
          // the caller deletes every file this writer created
        }
      }
    } finally {
      HadoopDefaultsHidden.exit(previous);
    }
  }

  private List<DataFile> close() throws IOException {
    return DataFileCloses.closeAll(order, parallelCloses, loader);
  }

  /** The hash key of a null partition value. */
  private enum NullKey {
    INSTANCE
  }
}
