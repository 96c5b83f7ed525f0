package dev.featurestore.cdc;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * One write-ahead log segment file open for appending, written through a shared memory mapping:
 * a record copied into the mapping is in the operating system's page cache at once (it survives
 * the death of the process, like a {@code write(2)}), without a system call per record (a
 * {@code write(2)} of a 150-byte record cost 1.3-5 us here, more than all the rest of
 * {@code createEntry}).
 *
 * <p>The file is zero-filled ahead of the records (a spare prepared in the background, or grown
 * here), so its tail past the last record reads as zeros until {@link #truncate()} cuts it to
 * the records' length; recovery reads an all-zero tail as unwritten space. Zero-filling with
 * {@code write(2)} rather than mapping a sparse file keeps the block allocation (and a full disk)
 * in a system call that reports errors, not in a page fault. Not thread-safe.
 */
final class WalSegmentFile {
  /** {@code sun.misc.Unsafe.invokeCleaner}, to unmap at once; null if unavailable (then the GC unmaps). */
  private static final MethodHandle UNMAP = unmapper();
  private static final int ZERO_CHUNK = 1 << 20;

  private Path path;
  final FileChannel channel;
  /** The file's size (zero-filled up to it). */
  private long capacity;
  /** The records' length: where the next one goes. */
  private long length;
  /** The mapping of [base, capacity). */
  private MappedByteBuffer mapping;
  private long base;

  private WalSegmentFile(Path path, FileChannel channel, long capacity) throws IOException {
    this.path = path;
    this.channel = channel;
    this.capacity = capacity;
    this.mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, capacity);
  }

  /** Creates {@code path} (replacing a file there) zero-filled to {@code bytes} and maps it. */
  static WalSegmentFile create(Path path, long bytes) throws IOException {
    FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
        StandardOpenOption.READ, StandardOpenOption.WRITE);
    try {
      zeroFill(channel, 0, bytes);
      return new WalSegmentFile(path, channel, bytes);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /** Gives the open file a new name ({@code rename(2)}, replacing a file there). */
  void moveTo(Path to) throws IOException {
    Files.move(path, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    path = to;
  }

  Path path() {
    return path;
  }

  long length() {
    return length;
  }

  /** Appends {@code bytes} (all of its remaining bytes), growing the file first if it is full. */
  void put(ByteBuffer bytes) throws IOException {
    int n = bytes.remaining();
    if (mapping.remaining() < n) {
      grow(n);
    }
    try {
      mapping.put(bytes);
    } catch (InternalError e) {
      // a fault in the mapped memory (the JVM's report of SIGBUS): the file cannot be written
      throw new IOException("cannot write the mapped segment: " + e.getMessage(), e);
    }
    length += n;
  }

  /**
   * The mapping, positioned where the next {@code n} bytes go (the file grown first if it is
   * full); the caller writes exactly them there and calls {@link #advance}.
   */
  ByteBuffer room(int n) throws IOException {
    if (mapping.remaining() < n) {
      grow(n);
    }
    return mapping;
  }

  /** The {@code n} bytes written into {@link #room} are a record now. */
  void advance(int n) {
    length += n;
  }

  /** After a failed write into {@link #room}: the next record goes where that one began. */
  void rewind() {
    mapping.position((int) (length - base));
  }

  /** Doubles the file (at least enough for {@code n} more bytes), zero-filled, and maps the new part. */
  private void grow(int n) throws IOException {
    long newCapacity = Math.max(capacity * 2, length + n);
    zeroFill(channel, capacity, newCapacity);
    unmap(mapping);
    base = length;
    mapping = channel.map(FileChannel.MapMode.READ_WRITE, base, newCapacity - base);
    capacity = newCapacity;
  }

  /** Cuts the file to the records' length (the zero-filled space after them goes). */
  void truncate() throws IOException {
    if (capacity > length) {
      channel.truncate(length);
      capacity = length;
    }
  }

  /** Forces the records to the disk ({@code fdatasync}: the pages written through the mapping, and the length). */
  void force() throws IOException {
    channel.force(false);
  }

  /** Unmaps and closes; the file stays. Safe to call twice. */
  void close() throws IOException {
    MappedByteBuffer m = mapping;
    mapping = null;
    if (m != null) {
      unmap(m);
    }
    channel.close();
  }

  private static void zeroFill(FileChannel channel, long from, long to) throws IOException {
    ByteBuffer zeros = ByteBuffer.allocateDirect((int) Math.min(ZERO_CHUNK, Math.max(1, to - from)));
    long pos = from;
    while (pos < to) {
      zeros.clear();
      zeros.limit((int) Math.min(zeros.capacity(), to - pos));
      while (zeros.hasRemaining()) {
        pos += channel.write(zeros, pos);
      }
    }
  }

  /** True if every byte of {@code b} from {@code pos} to its limit is zero: unwritten space of a segment. */
  static boolean zeroFrom(ByteBuffer b, int pos) {
    for (int i = pos; i < b.limit(); i++) {
      if (b.get(i) != 0) {
        return false;
      }
    }
    return true;
  }

  private static void unmap(MappedByteBuffer m) {
    if (UNMAP == null) {
      return;
    }
    try {
      UNMAP.invokeExact((ByteBuffer) m);
    } catch (Throwable e) {
      // left to the garbage collector
    }
  }

  private static MethodHandle unmapper() {
    try {
      Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
      Field field = unsafeClass.getDeclaredField("theUnsafe");
      field.setAccessible(true);
      Object unsafe = field.get(null);
      return MethodHandles.lookup()
          .findVirtual(unsafeClass, "invokeCleaner", MethodType.methodType(void.class, ByteBuffer.class))
          .bindTo(unsafe);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }
}
