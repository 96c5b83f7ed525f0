package dev.featurestore.core.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalFileIOTest {
  @TempDir Path dir;
  private final LocalFileIO io = new LocalFileIO();

  private void write(String location, String content) throws IOException {
    try (OutputStream out = io.newOutputFile(location).create()) {
      out.write(content.getBytes(StandardCharsets.UTF_8));
    }
  }

  @Test
  void writeThenRead_createsParentDirectories_andCountsPosition() throws IOException {
    String location = dir.resolve("a/b/c.txt").toString();
    try (PositionOutputStream out = io.newOutputFile(location).create()) {
      out.write("hello ".getBytes(StandardCharsets.UTF_8));
      out.write('w');
      assertThat(out.getPos()).isEqualTo(7);
    }
    InputFile in = io.newInputFile(location);
    assertThat(in.exists()).isTrue();
    assertThat(in.getLength()).isEqualTo(7);
    try (InputStream stream = in.newStream()) {
      assertThat(new String(stream.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("hello w");
    }
  }

  @Test
  void fileUris_andPlainPaths_nameTheSameFile() throws IOException {
    Path file = dir.resolve("x.txt");
    write("file:" + file, "one");
    assertThat(io.newInputFile("file://" + file).getLength()).isEqualTo(3);
    assertThat(io.newInputFile(file.toString()).exists()).isTrue();
    assertThat(LocalFileIO.toPath("file:///tmp/a")).isEqualTo(Path.of("/tmp/a"));
  }

  @Test
  void create_onExistingFile_fails_createOrOverwrite_replaces() throws IOException {
    String location = dir.resolve("f").toString();
    write(location, "first");
    assertThatThrownBy(() -> io.newOutputFile(location).create())
        .isInstanceOf(AlreadyExistsException.class)
        .hasMessageContaining(location);
    try (OutputStream out = io.newOutputFile(location).createOrOverwrite()) {
      out.write('2');
    }
    assertThat(Files.readString(Path.of(location))).isEqualTo("2");
  }

  @Test
  void seekAndRangeReads_returnTheRightBytes() throws IOException {
    StringBuilder content = new StringBuilder();
    for (int i = 0; i < 50_000; i++) {
      content.append((char) ('a' + i % 26));
    }
    String location = dir.resolve("big").toString();
    write(location, content.toString());
    try (SeekableInputStream in = io.newInputFile(location).newStream()) {
      in.seek(40_000);
      assertThat((char) in.read()).isEqualTo(content.charAt(40_000));
      assertThat(in.getPos()).isEqualTo(40_001);
      in.seek(3);
      byte[] three = new byte[3];
      assertThat(in.read(three)).isEqualTo(3);
      assertThat(new String(three, StandardCharsets.UTF_8)).isEqualTo(content.substring(3, 6));
      byte[] range = new byte[10];
      ((RangeReadable) in).readFully(49_990, range, 0, 10);
      assertThat(new String(range, StandardCharsets.UTF_8)).isEqualTo(content.substring(49_990));
      byte[] tail = new byte[4];
      assertThat(((RangeReadable) in).readTail(tail, 0, 4)).isEqualTo(4);
      assertThat(new String(tail, StandardCharsets.UTF_8)).isEqualTo(content.substring(49_996));
      byte[] all = new byte[content.length() - 6];
      in.readNBytes(all, 0, all.length);
      assertThat(new String(all, StandardCharsets.UTF_8)).isEqualTo(content.substring(6));
      assertThat(in.read()).isEqualTo(-1);
    }
  }

  @Test
  void missingFile_isIcebergNotFound() {
    String location = dir.resolve("missing").toString();
    assertThat(io.newInputFile(location).exists()).isFalse();
    assertThatThrownBy(() -> io.newInputFile(location).newStream()).isInstanceOf(NotFoundException.class);
    assertThatThrownBy(() -> io.newInputFile(location).getLength()).isInstanceOf(NotFoundException.class);
  }

  @Test
  void listPrefix_directoryAndPartialName() throws IOException {
    write(dir.resolve("t/data/p=1/a.parquet").toString(), "aa");
    write(dir.resolve("t/data/p=2/b.parquet").toString(), "bbb");
    write(dir.resolve("t/metadata/v1.json").toString(), "{}");
    List<String> all = new ArrayList<>();
    for (FileInfo f : io.listPrefix(dir.resolve("t").toString())) {
      all.add(Path.of(f.location()).getFileName().toString());
      assertThat(f.size()).isPositive();
      assertThat(f.createdAtMillis()).isPositive();
    }
    assertThat(all).containsExactlyInAnyOrder("a.parquet", "b.parquet", "v1.json");

    List<String> partial = new ArrayList<>();
    io.listPrefix(dir.resolve("t/data/p=").toString()).forEach(f -> partial.add(f.location()));
    assertThat(partial).hasSize(2);
    assertThat(io.listPrefix(dir.resolve("nothing-here").toString())).isEmpty();
  }

  /**
   * Files deleted while a folder is listed (as a commit's temporary files are renamed away while
   * another process lists the metadata folder) are left out of the listing; the listing does not
   * fail, and a file that stays is always listed. Before, the walk failed with a
   * NoSuchFileException on the first entry gone between reading the folder and reading its
   * attributes, and the cleanup after a lost create ({@code ConcurrentOpenTest}) then did nothing.
   */
  @Test
  void listPrefix_whileFilesAreDeleted_leavesThemOut() throws Exception {
    Path folder = dir.resolve("t/metadata");
    Files.createDirectories(folder);
    write(folder.resolve("00000-keep.metadata.json").toString(), "k");
    for (int round = 0; round < 5; round++) {
      List<Path> doomed = new ArrayList<>();
      for (int i = 0; i < 2000; i++) {
        Path file = folder.resolve(".tmp-" + round + "-" + i + ".metadata.json");
        Files.write(file, new byte[] {1});
        doomed.add(file);
      }
      java.util.Collections.shuffle(doomed, new java.util.Random(round));
      java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
      Thread deleter = new Thread(() -> {
        started.countDown();
        for (Path file : doomed) {
          try {
            Files.deleteIfExists(file);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }
      });
      deleter.start();
      started.await();
      try {
        do {
          List<String> names = new ArrayList<>();
          io.listPrefix(folder + "/").forEach(f -> names.add(Path.of(f.location()).getFileName().toString()));
          assertThat(names).contains("00000-keep.metadata.json").allMatch(n -> n.endsWith(".metadata.json"));
        } while (deleter.isAlive());
      } finally {
        deleter.join();
      }
    }
    assertThat(io.listPrefix(folder + "/")).hasSize(1);
  }

  @Test
  void deletePrefix_andBulkDelete_removeFiles() throws IOException {
    write(dir.resolve("t/data/a").toString(), "a");
    write(dir.resolve("t/data/b").toString(), "b");
    write(dir.resolve("t/keep").toString(), "k");
    io.deleteFiles(List.of(dir.resolve("t/data/a").toString(), dir.resolve("t/data/never-existed").toString()));
    assertThat(dir.resolve("t/data/a")).doesNotExist();
    io.deletePrefix(dir.resolve("t/data").toString());
    assertThat(dir.resolve("t/data")).doesNotExist();
    assertThat(dir.resolve("t/keep")).exists();
  }

  @Test
  void remoteSchemes_areRefused() {
    assertThatThrownBy(() -> io.newInputFile("s3://bucket/key"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use location with local storage: unsupported scheme: s3://bucket/key");
  }
  /** Two deletions of one prefix at once (a drop racing a cleanup): both succeed, nothing is left. */
  @Test
  void deletePrefix_twiceAtOnce_bothSucceed() throws Exception {
    for (int round = 0; round < 20; round++) {
      Path root = dir.resolve("drop" + round);
      for (int d = 0; d < 10; d++) {
        for (int i = 0; i < 100; i++) {
          write(root.resolve("d" + d + "/f" + i).toString(), "x");
        }
      }
      java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
      Thread other = new Thread(() -> {
        try {
          io.deletePrefix(root.toString());
        } catch (Throwable t) {
          failure.set(t);
        }
      });
      other.start();
      io.deletePrefix(root.toString());
      other.join();
      assertThat(failure.get()).isNull();
      assertThat(root).doesNotExist();
    }
  }
}
