package dev.featurestore.core.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidStateException;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.storage.ForwardingFileIO.Ownership;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ForwardingFileIOTest {
  @TempDir Path dir;

  /** The local FileIO with neither bulk nor prefix operations, as a plug-in FileIO may be. */
  private static final class PlainFileIO implements FileIO {
    final LocalFileIO local = new LocalFileIO();
    final AtomicInteger closed = new AtomicInteger();
    Map<String, String> initialized;

    @Override
    public InputFile newInputFile(String path) {
      return local.newInputFile(path);
    }

    @Override
    public OutputFile newOutputFile(String path) {
      return local.newOutputFile(path);
    }

    @Override
    public void deleteFile(String path) {
      if (path.endsWith("locked")) {
        throw new IllegalStateException("locked: " + path);
      }
      local.deleteFile(path);
    }

    @Override
    public Map<String, String> properties() {
      return Map.of("k", "v");
    }

    @Override
    public void initialize(Map<String, String> properties) {
      initialized = properties;
    }

    @Override
    public void close() {
      closed.incrementAndGet();
    }
  }

  /** Records each single deletion it is asked for. */
  private static final class DeletionRecorder extends ForwardingFileIO {
    final List<String> deleted = new ArrayList<>();

    DeletionRecorder(FileIO delegate) {
      this(delegate, Ownership.OWNED);
    }

    DeletionRecorder(FileIO delegate, Ownership ownership) {
      super(delegate, ownership);
    }

    @Override
    public void deleteFile(String location) {
      deleted.add(location);
      super.deleteFile(location);
    }
  }

  private String write(String name) throws IOException {
    String location = dir.resolve(name).toString();
    try (PositionOutputStream out = new LocalFileIO().newOutputFile(location).create()) {
      out.write(name.getBytes(StandardCharsets.UTF_8));
    }
    return location;
  }

  @Test
  void overTheLocalFileIO_forwardsBulkDeletesAndPrefixOperations() throws IOException {
    String a = write("p-a");
    String b = write("p-b");
    String c = write("q-c");
    DeletionRecorder io = new DeletionRecorder(new LocalFileIO());

    List<String> listed = new ArrayList<>();
    for (FileInfo file : io.listPrefix(dir.resolve("p-").toString())) {
      listed.add(file.location());
    }
    assertThat(listed).extracting(l -> Path.of(l).getFileName().toString())
        .containsExactlyInAnyOrder("p-a", "p-b");
    io.deleteFiles(List.of(a, b));
    assertThat(io.deleted).as("one bulk request, not single deletions").isEmpty();
    assertThat(Files.exists(Path.of(a))).isFalse();
    assertThat(Files.exists(Path.of(b))).isFalse();
    io.deletePrefix(dir.resolve("q-").toString());
    assertThat(Files.exists(Path.of(c))).isFalse();
  }

  @Test
  void overAFileIOWithoutBulkDeletes_deletesOneByOne_andCountsTheFailures() throws IOException {
    String a = write("a");
    String locked = write("locked");
    String b = write("b");
    DeletionRecorder io = new DeletionRecorder(new PlainFileIO());

    assertThatThrownBy(() -> io.deleteFiles(List.of(a, locked, b)))
        .isInstanceOfSatisfying(BulkDeletionFailureException.class, e -> assertThat(e.numberFailedObjects()).isEqualTo(1));
    assertThat(io.deleted).containsExactly(a, locked, b);
    assertThat(Files.exists(Path.of(a))).isFalse();
    assertThat(Files.exists(Path.of(locked))).isTrue();
    assertThat(Files.exists(Path.of(b))).isFalse();
  }

  @Test
  void overAFileIOWithoutPrefixOperations_prefixOperations_areRefused() {
    DeletionRecorder io = new DeletionRecorder(new PlainFileIO());
    String prefix = dir.resolve("p-").toString();

    assertThatThrownBy(() -> io.listPrefix(prefix)).isInstanceOf(UnsupportedOperationException.class)
        .hasMessage("Cannot list files by prefix: " + PlainFileIO.class.getName()
            + " does not support prefix operations: " + prefix);
    assertThatThrownBy(() -> io.deletePrefix(prefix)).isInstanceOf(UnsupportedOperationException.class)
        .hasMessage("Cannot delete files by prefix: " + PlainFileIO.class.getName()
            + " does not support prefix operations: " + prefix);
  }

  @Test
  void owningWrapper_forwardsInitializeAndClose() {
    PlainFileIO plain = new PlainFileIO();
    DeletionRecorder io = new DeletionRecorder(plain, Ownership.OWNED);

    io.initialize(Map.of("a", "b"));
    assertThat(plain.initialized).isEqualTo(Map.of("a", "b"));
    assertThat(io.properties()).isEqualTo(Map.of("k", "v"));
    io.close();
    assertThat(plain.closed).hasValue(1);
  }

  @Test
  void borrowingWrapper_neitherInitializesNorClosesTheFileIO() {
    PlainFileIO plain = new PlainFileIO();
    DeletionRecorder io = new DeletionRecorder(plain, Ownership.BORROWED);

    io.initialize(Map.of("a", "b"));
    assertThat(plain.initialized).isNull();
    assertThat(io.properties()).isEqualTo(Map.of("k", "v"));
    io.close();
    io.close();
    assertThat(plain.closed).hasValue(0);
  }

  @Test
  void prefixOperations_followTheWrappedFileIO() throws IOException {
    PlainFileIO plain = new PlainFileIO();
    LocalFileIO local = new LocalFileIO();
    assertThat(PrefixOperations.of(plain)).isEmpty();
    assertThat(PrefixOperations.of(local)).containsSame(local);

    DeletionRecorder overPlain = new DeletionRecorder(plain);
    assertThat(overPlain).as("advertised by every wrapper").isInstanceOf(SupportsPrefixOperations.class);
    assertThat(PrefixOperations.of(overPlain)).isEmpty();
    assertThat(PrefixOperations.of(new DeletionRecorder(overPlain))).as("two wrappers deep").isEmpty();
    DeletionRecorder overLocal = new DeletionRecorder(local);
    assertThat(PrefixOperations.of(overLocal)).containsSame(overLocal);
    assertThat(PrefixOperations.of(new DeletionRecorder(overLocal))).isPresent();

    try (TieredFileIO overPlainHot = TieredFileIO.open(plain, local, dir.resolve("hot").toString(), "s3://cold/w",
            dir.resolve("cache"), 1 << 20);
        TieredFileIO overLocalHot = TieredFileIO.open(local, local, dir.resolve("hot").toString(), "s3://cold/w",
            dir.resolve("cache2"), 1 << 20)) {
      assertThat(PrefixOperations.of(overPlainHot)).isEmpty();
      assertThat(PrefixOperations.of(new DeletionRecorder(overPlainHot))).isEmpty();
      assertThat(PrefixOperations.of(overLocalHot)).containsSame(overLocalHot);
    }
  }

  /** A store over a caller's FileIO without listing: the wrappers in between do not make it look listing-capable. */
  @Test
  void storeOverAWrappedFileIOWithoutListing_usesTheFallbacks_andTypedRefusals() {
    PlainFileIO plain = new PlainFileIO();
    DeletionRecorder wrapped = new DeletionRecorder(plain, Ownership.BORROWED);
    try (FeatureStore store = FeatureStore.builder().root(dir.resolve("store")).fileIO(wrapped).build()) {
      // table creation: created without the listing check of an interrupted create
      FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      table.ingest().synthetic(100, 1).commit();
      assertThat(table.query().count()).isEqualTo(100);
      // orphan removal and catalog recovery: their typed refusal, not the wrapper's
      assertThatThrownBy(() -> table.maintenance().removeOrphanFiles().olderThan(java.time.Duration.ofDays(3)).execute())
          .isInstanceOf(InvalidStateException.class)
          .hasMessage("Cannot remove orphan files: the FileIO cannot list files: " + DeletionRecorder.class.getName());
      assertThatThrownBy(store::recoverCatalog).isInstanceOf(InvalidStateException.class)
          .hasMessage("Cannot recover catalog: the FileIO cannot list files: " + DeletionRecorder.class.getName());
    }
  }

  @Test
  void closingTheStore_leavesTheCallersFileIOOpen() {
    PlainFileIO plain = new PlainFileIO();
    try (FeatureStore store = FeatureStore.builder().root(dir.resolve("store")).fileIO(plain).build()) {
      store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build())
          .ingest().synthetic(10, 1).commit();
    }
    assertThat(plain.closed).as("the catalog's recording wrapper borrows the FileIO").hasValue(0);
  }
}
