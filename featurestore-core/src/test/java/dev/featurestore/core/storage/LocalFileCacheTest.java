package dev.featurestore.core.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.InvalidStateException;
import dev.featurestore.StorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.io.PositionOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalFileCacheTest {
  @TempDir
  Path dir;

  final ExecutorService pool = Executors.newFixedThreadPool(2);
  final InMemoryFileIO io = new InMemoryFileIO();

  final List<LocalFileCache> opened = new java.util.ArrayList<>();

  @AfterEach
  void close() {
    opened.forEach(LocalFileCache::close);
    pool.shutdownNow();
  }

  private LocalFileCache closeAfter(LocalFileCache cache) {
    opened.add(cache);
    return cache;
  }

  private String put(String name, int size) throws Exception {
    String location = "s3://bucket/" + getClass().getSimpleName() + "/" + name + "-" + System.nanoTime();
    try (PositionOutputStream out = io.newOutputFile(location).create()) {
      out.write(new byte[size]);
    }
    return location;
  }

  @Test
  void coldThenWarm_fetchesOnce() throws Exception {
    LocalFileCache cache = new LocalFileCache(dir.resolve("cache"), 1_000_000, pool);
    String a = put("a", 100);
    String b = put("b", 200);
    try (LocalFileCache.Lease cold = cache.acquire(List.of(a, b), io)) {
      assertThat(cold.filesFetched()).isEqualTo(2);
      assertThat(cold.bytesFetched()).isEqualTo(300);
      assertThat(Files.size(cold.path(b))).isEqualTo(200);
    }
    try (LocalFileCache.Lease warm = cache.acquire(List.of(a, b), io)) {
      assertThat(warm.filesFromCache()).isEqualTo(2);
      assertThat(warm.filesFetched()).isZero();
    }
    cache.close();
    // a new cache over the same directory finds the files (they are immutable)
    try (LocalFileCache reopened = new LocalFileCache(dir.resolve("cache"), 1_000_000, pool);
        LocalFileCache.Lease warm = reopened.acquire(List.of(a), io)) {
      assertThat(warm.filesFromCache()).isEqualTo(1);
    }
  }

  /**
   * Two caches over one directory (two stores on one root) would each evict, and delete partial
   * downloads of, files the other holds: the second is refused while the first is open, and the
   * first's held file and its download in progress stay.
   */
  @Test
  void secondCacheOverTheSameDirectory_isRefused_andTheFirstsFilesStay() throws Exception {
    Path directory = dir.resolve("cache").toAbsolutePath().normalize();
    String a = put("a", 100);
    try (LocalFileCache first = new LocalFileCache(directory, 1_000_000, pool);
        LocalFileCache.Lease held = first.acquire(List.of(a), io)) {
      Path partial = Files.writeString(directory.resolve("other." + java.util.UUID.randomUUID() + ".part"), "x");
      assertThatThrownBy(() -> new LocalFileCache(directory, 0, pool))
          .isExactlyInstanceOf(InvalidStateException.class)
          .hasMessage("Cannot open file cache: directory in use by another store: " + directory);
      assertThat(held.path(a)).exists(); // a second cache bound to 0 bytes would have evicted it
      assertThat(partial).exists(); // and deleted the first's download in progress
      try (LocalFileCache.Lease again = first.acquire(List.of(a), io)) {
        assertThat(again.filesFromCache()).isEqualTo(1);
        assertThat(again.path(a)).exists();
      }
    }
    // closed: the directory is free, and its files are adopted
    try (LocalFileCache second = new LocalFileCache(directory, 1_000_000, pool);
        LocalFileCache.Lease warm = second.acquire(List.of(a), io)) {
      assertThat(warm.filesFromCache()).isEqualTo(1);
    }
  }

  @Test
  void closedCache_refusesToAcquire() throws Exception {
    LocalFileCache cache = new LocalFileCache(dir.resolve("cache"), 1_000, pool);
    cache.close();
    cache.close();
    assertThatThrownBy(() -> cache.acquire(List.of(put("a", 10)), io))
        .isExactlyInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot read through file cache: cache is closed: " + cache.directory());
  }

  @Test
  void sizeBound_evictsLeastRecentlyUsed_butNotHeldFiles() throws Exception {
    LocalFileCache cache = closeAfter(new LocalFileCache(dir.resolve("cache"), 250, pool));
    String a = put("a", 100);
    String b = put("b", 100);
    String c = put("c", 100);
    cache.acquire(List.of(a), io).close();
    cache.acquire(List.of(b), io).close();
    cache.acquire(List.of(a), io).close(); // a is now more recent than b
    try (LocalFileCache.Lease held = cache.acquire(List.of(c), io)) {
      assertThat(cache.stats().files()).isEqualTo(2); // b evicted
      assertThat(Files.exists(held.path(c))).isTrue();
    }
    try (LocalFileCache.Lease again = cache.acquire(List.of(a, b), io)) {
      assertThat(again.filesFromCache()).isEqualTo(1);
      assertThat(again.filesFetched()).isEqualTo(1);
    }
    assertThat(cache.stats().evictions()).isGreaterThanOrEqualTo(1);
    assertThat(cache.stats().bytes()).isLessThanOrEqualTo(250);
  }

  @Test
  void missingRemoteFile_isStorageError_andLeavesNothing() throws Exception {
    LocalFileCache cache = closeAfter(new LocalFileCache(dir.resolve("cache"), 1_000, pool));
    assertThatThrownBy(() -> cache.acquire(List.of("s3://bucket/missing.parquet"), io))
        .isInstanceOf(StorageException.class)
        .hasMessageStartingWith("Cannot fetch file into cache: ");
    try (var files = Files.list(dir.resolve("cache"))) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly(".lock"); // the owner's lock
    }
  }
}
