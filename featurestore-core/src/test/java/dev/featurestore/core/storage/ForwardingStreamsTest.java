package dev.featurestore.core.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ForwardingStreamsTest {
  @TempDir Path dir;
  private final LocalFileIO io = new LocalFileIO();

  @Test
  void input_forwardsReadsSeeksAndRangeReads_toTheDelegate() throws IOException {
    String location = dir.resolve("f.txt").toString();
    try (PositionOutputStream out = io.newOutputFile(location).create()) {
      out.write("0123456789".getBytes(StandardCharsets.UTF_8));
    }
    AtomicInteger closed = new AtomicInteger();
    SeekableInputStream in = new ForwardingSeekableInputStream(io.newInputFile(location).newStream()) {
      @Override
      public void close() throws IOException {
        super.close();
        closed.incrementAndGet();
      }
    };
    try (in) {
      in.seek(3);
      assertThat(in.read()).isEqualTo('3');
      assertThat(in.getPos()).isEqualTo(4);
      byte[] tail = new byte[2];
      assertThat(((RangeReadable) in).readTail(tail, 0, 2)).isEqualTo(2);
      assertThat(new String(tail, StandardCharsets.UTF_8)).isEqualTo("89");
      byte[] range = new byte[3];
      ((RangeReadable) in).readFully(5, range, 0, 3);
      assertThat(new String(range, StandardCharsets.UTF_8)).isEqualTo("567");
      assertThat(in.getPos()).isEqualTo(4);
    }
    assertThat(closed).hasValue(1);
  }

  @Test
  void input_overAStreamWithoutRangeReads_isRefused() {
    SeekableInputStream plain = new SeekableInputStream() {
      @Override
      public long getPos() {
        return 0;
      }

      @Override
      public void seek(long newPos) {}

      @Override
      public int read() {
        return -1;
      }
    };
    assertThatThrownBy(() -> new ForwardingSeekableInputStream(plain))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot forward stream: no range reads: ");
  }

  @Test
  void output_overAPlainStream_countsItsPosition_andClosesOnce() throws IOException {
    AtomicInteger closes = new AtomicInteger();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream() {
      @Override
      public void close() {
        closes.incrementAndGet();
      }
    };
    PositionOutputStream out = new ForwardingPositionOutputStream(bytes);
    out.write("abc".getBytes(StandardCharsets.UTF_8), 1, 2);
    out.write('d');
    assertThat(out.getPos()).isEqualTo(3);
    assertThat(out.storedLength()).isEqualTo(3);
    out.close();
    out.close();
    assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo("bcd");
    assertThat(closes).hasValue(1);
  }

  @Test
  void output_overAPositionStream_answersItsPosition() throws IOException {
    String location = dir.resolve("g.txt").toString();
    try (PositionOutputStream delegate = io.newOutputFile(location).create()) {
      delegate.write("xy".getBytes(StandardCharsets.UTF_8));
      PositionOutputStream out = new ForwardingPositionOutputStream(delegate);
      out.write('z');
      assertThat(out.getPos()).isEqualTo(3);
    }
  }
}
