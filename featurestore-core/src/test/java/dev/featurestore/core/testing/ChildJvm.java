package dev.featurestore.core.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM on the test class path, for tests that kill a process with SIGKILL or race two
 * processes. Its standard output is read line by line on a thread ({@link #await}); its standard
 * error is appended to {@code child-stderr.log} in the log directory; {@link #send} writes a line
 * to its standard input. {@link #close()} kills it if it is still running.
 *
 * <pre>{@code
 * try (ChildJvm child = ChildJvm.start(MyChild.class, dir, "arg")) {
 *   assertThat(child.await("PAUSED", Duration.ofSeconds(60))).isPresent();
 *   child.kill();
 * }
 * }</pre>
 */
public final class ChildJvm implements AutoCloseable {
  private final Process process;
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final Writer stdin;

  private ChildJvm(Process process) {
    this.process = process;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          lines.add(line);
        }
      } catch (IOException e) {
        // the child died
      }
    }, "child-jvm-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts {@code main} with {@code args} in a small, quick-starting JVM. */
  public static ChildJvm start(Class<?> main, Path logDir, String... args) {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto", "-Xmx256m",
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
        "-cp", System.getProperty("java.class.path"), main.getName()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.redirectError(ProcessBuilder.Redirect.appendTo(logDir.resolve("child-stderr.log").toFile()));
    try {
      return new ChildJvm(pb.start());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start child JVM: " + main.getName(), e);
    }
  }

  /** Every line the child printed so far. */
  public List<String> lines() {
    return List.copyOf(lines);
  }

  /**
   * The first line, from the {@code from}-th line on, starting with {@code prefix}: waits for it
   * until {@code timeout} or the child's end.
   */
  public Optional<String> await(String prefix, int from, Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    boolean ended = false;
    while (true) {
      List<String> seen = lines;
      for (int i = from; i < seen.size(); i++) {
        if (seen.get(i).startsWith(prefix)) {
          return Optional.of(seen.get(i));
        }
      }
      if (ended || System.nanoTime() > end) {
        return Optional.empty();
      }
      if (!process.isAlive()) {
        ended = true; // one more look: the reader may still be adding its last lines
        Thread.sleep(100);
      } else {
        Thread.sleep(10);
      }
    }
  }

  /** As {@link #await(String, int, Duration)} from the first line. */
  public Optional<String> await(String prefix, Duration timeout) throws InterruptedException {
    return await(prefix, 0, timeout);
  }

  /** Writes {@code line} to the child's standard input. */
  public void send(String line) throws IOException {
    stdin.write(line);
    stdin.write('\n');
    stdin.flush();
  }

  /** Kills the child with SIGKILL (on Linux) and waits for it to end. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("Cannot kill child JVM: still running after 30 s: " + process.pid());
    }
  }

  /** Waits for the child to end by itself; its exit code, or empty on timeout. */
  public Optional<Integer> waitFor(Duration timeout) throws InterruptedException {
    return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? Optional.of(process.exitValue()) : Optional.empty();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
