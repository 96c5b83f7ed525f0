package dev.featurestore.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The one benchmark convention: our path and its baseline run in the same process, alternating
 * (the side that goes first alternates too), after a warm-up; the medians are compared, and the
 * last line on stdout is
 *
 * <pre>RESULT &lt;name&gt; ours=&lt;value&gt; baseline=&lt;value&gt; unit=&lt;unit&gt; ratio=&lt;ours/baseline&gt;</pre>
 *
 * <p>Progress goes to stderr, so stdout holds only notes (files, bytes) and the RESULT line.
 * Settings come from system properties ({@code -Dwarmups=}, {@code -Diterations=}, ...);
 * {@code -Donly=ours} or {@code -Donly=baseline} runs one side only (to check a harness; the
 * other side is reported as {@code n/a}).
 */
final class Harness {
  /** One measured run of one side; returns the measured value in the benchmark's unit. */
  @FunctionalInterface
  interface Trial {
    double run(int iteration) throws Exception;
  }

  /** Medians of both sides; NaN for a side that did not run. */
  record Medians(double ours, double baseline) {}

  private Harness() {}

  static int intSetting(String name, int defaultValue) {
    String value = System.getProperty(name);
    return value == null || value.isBlank() ? defaultValue : Integer.parseInt(value.replace("_", "").trim());
  }

  static long longSetting(String name, long defaultValue) {
    String value = System.getProperty(name);
    return value == null || value.isBlank() ? defaultValue : Long.parseLong(value.replace("_", "").trim());
  }

  static boolean runs(String side) {
    String only = System.getProperty("only", "").trim();
    return only.isEmpty() || only.equalsIgnoreCase(side);
  }

  static void progress(String format, Object... args) {
    System.err.println("[bench] " + String.format(Locale.ROOT, format, args));
    System.err.flush();
  }

  static void note(String format, Object... args) {
    System.out.println(String.format(Locale.ROOT, format, args));
    System.out.flush();
  }

  /**
   * Runs {@code warmups} unmeasured rounds, then {@code iterations} measured rounds; each round
   * runs both sides, alternating which goes first.
   */
  static Medians alternate(String name, String unit, int warmups, int iterations, Trial ours, Trial baseline)
      throws Exception {
    boolean runOurs = runs("ours");
    boolean runBaseline = runs("baseline");
    if (!runOurs && !runBaseline) {
      throw new IllegalArgumentException("Cannot run benchmark: -Donly must be ours or baseline: " + System.getProperty("only"));
    }
    double[] oursValues = new double[iterations];
    double[] baselineValues = new double[iterations];
    double[] oursCpu = new double[iterations];
    double[] baselineCpu = new double[iterations];
    int round = 0;
    for (int i = 0; i < warmups + iterations; i++, round++) {
      boolean warmup = i < warmups;
      String phase = warmup ? "warm-up " + (i + 1) + "/" + warmups : "run " + (i - warmups + 1) + "/" + iterations;
      boolean oursFirst = round % 2 == 0;
      for (int side = 0; side < 2; side++) {
        boolean isOurs = (side == 0) == oursFirst;
        if (isOurs ? !runOurs : !runBaseline) {
          continue;
        }
        long cpuStart = processCpuNanos();
        double value = (isOurs ? ours : baseline).run(i);
        double cpu = (processCpuNanos() - cpuStart) / 1e9;
        if (!warmup) {
          (isOurs ? oursValues : baselineValues)[i - warmups] = value;
          (isOurs ? oursCpu : baselineCpu)[i - warmups] = cpu;
        }
        progress("%s %s %s: %s %s (process CPU %.2f s)", name, phase, isOurs ? "ours" : "baseline", format(value), unit,
            cpu);
      }
    }
    if (iterations > 0 && processCpuNanos() >= 0) {
      // on a shared machine wall times swing with the load; the process's CPU time per round does not
      double oursMedian = runOurs ? median(oursCpu) : Double.NaN;
      double baselineMedian = runBaseline ? median(baselineCpu) : Double.NaN;
      note("%s process CPU per round (median, all threads incl. JIT and GC): ours=%s s baseline=%s s ratio=%s", name,
          runOurs ? String.format(Locale.ROOT, "%.2f", oursMedian) : "n/a",
          runBaseline ? String.format(Locale.ROOT, "%.2f", baselineMedian) : "n/a",
          runOurs && runBaseline ? String.format(Locale.ROOT, "%.3f", oursMedian / baselineMedian) : "n/a");
    }
    return new Medians(runOurs ? median(oursValues) : Double.NaN, runBaseline ? median(baselineValues) : Double.NaN);
  }

  /** CPU time of this process so far (all threads, native ones too), or -1 where the JVM cannot tell. */
  static long processCpuNanos() {
    java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : -1;
  }

  /** Prints the RESULT line; call it last. */
  static void result(String name, Medians medians, String unit) {
    System.out.println(resultLine(name, medians, unit));
    System.out.flush();
  }

  /** {@code RESULT <name> ours=<v> baseline=<v> unit=<u> ratio=<ours/baseline>}; n/a for a side not run. */
  static String resultLine(String name, Medians medians, String unit) {
    double ratio = medians.ours() / medians.baseline();
    return "RESULT " + name
        + " ours=" + format(medians.ours())
        + " baseline=" + format(medians.baseline())
        + " unit=" + unit
        + " ratio=" + (Double.isNaN(ratio) || Double.isInfinite(ratio) ? "n/a" : String.format(Locale.ROOT, "%.3f", ratio));
  }

  static String format(double value) {
    if (Double.isNaN(value)) {
      return "n/a";
    }
    if (Math.abs(value) >= 1000) {
      return String.format(Locale.ROOT, "%.0f", value);
    }
    return String.format(Locale.ROOT, "%.2f", value);
  }

  static double median(double[] values) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }

  /** The nearest-rank {@code p}th percentile (0-100) of {@code values}. */
  static double percentile(double[] values, double p) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  static double median(long[] values) {
    return median(Arrays.stream(values).asDoubleStream().toArray());
  }

  /** A fresh temporary directory for one benchmark run ({@code -Dbench.dir=} picks the parent). */
  static Path tempDir(String name) throws IOException {
    String parent = System.getProperty("bench.dir");
    return parent == null
        ? Files.createTempDirectory("featurestore-bench-" + name + "-")
        : Files.createTempDirectory(Files.createDirectories(Path.of(parent)), "featurestore-bench-" + name + "-");
  }

  static void deleteRecursively(Path root) {
    if (root == null || !Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static long elapsedNanos(long startNanos) {
    return System.nanoTime() - startNanos;
  }
}
