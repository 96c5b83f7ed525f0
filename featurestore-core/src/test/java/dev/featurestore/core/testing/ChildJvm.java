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
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM on the test class path, for tests that kill a process with SIGKILL or race two
 * processes. Its standard output is read line by line on a thread ({@link #await}); its standard
 * error is appended to {@code child-stderr.log} in the log directory; {@link #send} writes a line
 * to its standard input. After {@link #kill()} or a {@link #waitFor} that saw the end,
 * {@link #lines()} holds every line the child printed. {@link #close()} kills it if it is still
 * running.
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
  private final List<String> lines = new ArrayList<>(); // guarded by itself; notified on each line and at the end
  private boolean ended; // guarded by lines: the child's output is closed and read to its end
  private final Thread reader;
  private final Writer stdin;

  private ChildJvm(Process process) {
    this.process = process;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    this.reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          synchronized (lines) {
            lines.add(line);
            lines.notifyAll();
          }
        }
      } catch (IOException e) {
        // the child died
      } finally {
        synchronized (lines) {
          ended = true;
          lines.notifyAll();
        }
      }
    }, "child-jvm-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts {@code main} with {@code args} in a small, quick-starting JVM. */
  public static ChildJvm start(Class<?> main, Path logDir, String... args) {
    return start(main, logDir, Map.of(), args);
  }

  /** As {@link #start(Class, Path, String...)}, with {@code env} set in the child's environment (over the inherited one). */
  public static ChildJvm start(Class<?> main, Path logDir, Map<String, String> env, String... args) {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto", "-Xmx256m",
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
        "-cp", System.getProperty("java.class.path"), main.getName()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().putAll(env);
    pb.redirectError(ProcessBuilder.Redirect.appendTo(logDir.resolve("child-stderr.log").toFile()));
    try {
      return new ChildJvm(pb.start());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start child JVM: " + main.getName(), e);
    }
  }

  /** Every line the child printed so far. */
  public List<String> lines() {
    synchronized (lines) {
      return List.copyOf(lines);
    }
  }

  /** How many lines the child printed so far start with {@code prefix}. */
  public long count(String prefix) {
    return lines().stream().filter(l -> l.startsWith(prefix)).count();
  }

  /**
   * The first line, from the {@code from}-th line on, starting with {@code prefix}: waits for it
   * until {@code timeout} or the end of the child's output.
   */
  public Optional<String> await(String prefix, int from, Duration timeout) throws InterruptedException {
    return awaitNth(prefix, from, 1, timeout);
  }

  /** As {@link #await(String, int, Duration)} from the first line. */
  public Optional<String> await(String prefix, Duration timeout) throws InterruptedException {
    return await(prefix, 0, timeout);
  }

  /**
   * The {@code n}-th line (from 1) starting with {@code prefix}: waits for it until
   * {@code timeout} or the end of the child's output.
   */
  public Optional<String> awaitNth(String prefix, int n, Duration timeout) throws InterruptedException {
    return awaitNth(prefix, 0, n, timeout);
  }

  private Optional<String> awaitNth(String prefix, int from, int n, Duration timeout) throws InterruptedException {
    if (n < 1) {
      throw new IllegalArgumentException("Cannot await line: n must be at least 1: " + n);
    }
    long end = System.nanoTime() + timeout.toNanos();
    synchronized (lines) {
      int seen = 0;
      int next = from;
      while (true) {
        for (; next < lines.size(); next++) {
          if (lines.get(next).startsWith(prefix) && ++seen == n) {
            return Optional.of(lines.get(next));
          }
        }
        long left = end - System.nanoTime();
        if (ended || left <= 0) {
          return Optional.empty();
        }
        TimeUnit.NANOSECONDS.timedWait(lines, left);
      }
    }
  }

  /** Writes {@code line} to the child's standard input. */
  public void send(String line) throws IOException {
    stdin.write(line);
    stdin.write('\n');
    stdin.flush();
  }

  /**
   * Kills the child with SIGKILL (on Linux), waits for it to end and reads the rest of its output.
   * Through its {@link ProcessHandle}: {@link Process#destroyForcibly()} also closes this side of
   * the child's output, so lines the child printed and the reader had not read yet were lost (a
   * test then saw fewer acknowledgements than the child made; 9 kills in 100 lost lines here).
   */
  public void kill() throws InterruptedException {
    process.toHandle().destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("Cannot kill child JVM: still running after 30 s: " + process.pid());
    }
    drain();
  }

  /**
   * Waits for the child to end by itself and reads the rest of its output; its exit code, or
   * empty on timeout.
   */
  public Optional<Integer> waitFor(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      return Optional.empty();
    }
    drain();
    return Optional.of(process.exitValue());
  }

  /** The child ended: its output closes, so the reader reaches the end of it. */
  private void drain() throws InterruptedException {
    reader.join(TimeUnit.SECONDS.toMillis(30));
    if (reader.isAlive()) {
      throw new IllegalStateException("Cannot read the output of child JVM: still open 30 s after its end: " + process.pid());
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
