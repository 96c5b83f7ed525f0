package dev.featurestore.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ChildJvm#kill()} keeps what the child printed: crash tests count a child's
 * acknowledgements from its output after the kill, so a lost line looks like an entry made durable
 * without being acknowledged.
 */
class ChildJvmTest {
  @TempDir Path dir;

  /** Counts up as fast as it can: writes each number to a file, then prints {@code N <number>}. */
  public static void main(String[] args) throws Exception {
    PrintStream out = System.out;
    try (FileChannel written = FileChannel.open(Path.of(args[0]), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      out.println("STARTED");
      out.flush();
      for (long i = 1; ; i++) {
        written.write(ByteBuffer.wrap((i + "\n").getBytes(StandardCharsets.UTF_8)), 0);
        out.println("N " + i);
        out.flush();
      }
    }
  }

  @Test
  void kill_keepsEveryLineThatWasPrinted() throws Exception {
    // before the fix, about one kill in ten lost the last lines the reader had not read yet
    for (int run = 0; run < 12; run++) {
      Path written = dir.resolve("written-" + run);
      List<String> lines;
      try (ChildJvm child = ChildJvm.start(ChildJvmTest.class, dir, written.toString())) {
        assertThat(child.await("STARTED", Duration.ofSeconds(60))).isPresent();
        child.awaitNth("N ", 200 + 150 * run, Duration.ofSeconds(60));
        child.kill();
        lines = child.lines();
      }
      long printed = lines.stream().filter(l -> l.matches("N [0-9]+")).mapToLong(l -> Long.parseLong(l.substring(2)))
          .max().orElse(0);
      long last = lastWritten(written);
      // the child may die between writing a number and printing it, never further ahead
      assertThat(last).as("run %d: the child wrote %d, the lines read end at %d", run, last, printed)
          .isBetween(printed, printed + 1);
    }
  }

  private static long lastWritten(Path file) throws IOException {
    String text = Files.readString(file).trim();
    return text.isEmpty() ? 0 : Long.parseLong(text.split("\n")[0].trim());
  }
}
