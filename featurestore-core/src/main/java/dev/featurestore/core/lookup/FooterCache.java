package dev.featurestore.core.lookup;

import dev.featurestore.BloomFilter;
import dev.featurestore.StorageException;
import dev.featurestore.core.base.BloomKeys;
import dev.featurestore.core.base.ScanPlanning;
import dev.featurestore.core.storage.ParquetInput;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;

/**
 * What a lookup keeps between calls: the unfiltered file list of recent snapshots, and for each
 * data file its Parquet footer and the key column's bloom filter per row group. Data files never
 * change, so entries never go stale; the footer map is LRU-bounded. Thread-safe (synchronized).
 */
final class FooterCache {
  /**
   * A data file's footer (kept whole so the file can be read without parsing it again), its row
   * groups and the key's bloom filter in each (null where the file has none).
   */
  record Footer(ParquetMetadata metadata, MessageType schema, List<BlockMetaData> blocks, List<BloomFilter> keyFilters) {}

  private final String keyColumn;
  private final Map<String, Footer> footers;
  private final Map<Long, List<FileScanTask>> snapshots = new LinkedHashMap<>(8, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Long, List<FileScanTask>> eldest) {
      return size() > 4;
    }
  };

  FooterCache(String keyColumn, int maxFiles) {
    this.keyColumn = keyColumn;
    this.footers = new LinkedHashMap<>(256, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, Footer> eldest) {
        return size() > maxFiles;
      }
    };
  }

  /** Every live data file of a snapshot, with its delete files (planned once per snapshot). */
  synchronized List<FileScanTask> files(Table table, long snapshotId) {
    List<FileScanTask> tasks = snapshots.get(snapshotId);
    if (tasks == null) {
      tasks = new ArrayList<>();
      try (CloseableIterable<FileScanTask> planned = ScanPlanning.newScan(table, snapshotId).includeColumnStats().planFiles()) {
        planned.forEach(tasks::add);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      tasks = List.copyOf(tasks);
      snapshots.put(snapshotId, tasks);
    }
    return tasks;
  }

  Footer footer(Table table, DataFile file) {
    synchronized (this) {
      Footer cached = footers.get(file.location());
      if (cached != null) {
        return cached;
      }
    }
    Footer loaded = load(table, file);
    synchronized (this) {
      footers.put(file.location(), loaded);
    }
    return loaded;
  }

  private Footer load(Table table, DataFile file) {
    try (ParquetFileReader reader = ParquetFileReader.open(
        ParquetInput.of(table.io().newInputFile(file.location(), file.fileSizeInBytes())))) {
      List<BlockMetaData> blocks = reader.getFooter().getBlocks();
      List<BloomFilter> filters = new ArrayList<>(blocks.size());
      for (BlockMetaData block : blocks) {
        BloomFilter filter = null;
        for (ColumnChunkMetaData chunk : block.getColumns()) {
          if (chunk.getPath().toDotString().equals(keyColumn)) {
            org.apache.parquet.column.values.bloomfilter.BloomFilter parquet = reader.readBloomFilter(chunk);
            if (parquet != null) {
              filter = BloomKeys.toValue(parquet);
            }
          }
        }
        filters.add(filter);
      }
      return new Footer(reader.getFooter(), reader.getFooter().getFileMetaData().getSchema(), List.copyOf(blocks),
          java.util.Collections.unmodifiableList(filters));
    } catch (IOException e) {
      throw new StorageException("Cannot read footer of data file " + file.location() + ": " + e.getMessage(), e);
    }
  }
}
