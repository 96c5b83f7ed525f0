package dev.featurestore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code featurestore} as a real process on the test class path: one command per JVM
 * ({@link #run}), or several through {@link CliBatch} ({@link #batch}). The child's environment is
 * this one's without any B2_/FEATURESTORE_ variable, plus {@code env}.
 */
final class Cli {
  static final ObjectMapper JSON = new ObjectMapper();

  /** What a command did: its exit status, standard output and standard error. */
  record Result(List<String> args, int exit, String out, String err) {
    JsonNode json() {
      try {
        return JSON.readTree(out);
      } catch (IOException e) {
        throw new AssertionError("not JSON on stdout of " + args + ":\n" + out + "\nstderr:\n" + err, e);
      }
    }

    Result succeeded() {
      assertThat(exit).as("exit of %s%nstdout:%n%s%nstderr:%n%s", args, out, err).isZero();
      return this;
    }

    @Override
    public String toString() {
      return args + " -> " + exit + "\nstdout:\n" + out + "\nstderr:\n" + err;
    }
  }

  private final Path dir;
  private final Map<String, String> env = new LinkedHashMap<>();
  private final List<String> jvm = new ArrayList<>();

  Cli(Path dir) {
    this.dir = dir;
  }

  Cli env(String name, String value) {
    env.put(name, value);
    return this;
  }

  Cli jvmOption(String option) {
    jvm.add(option);
    return this;
  }

  /** One command in its own JVM, through {@code FeatureStoreCli.main}. */
  Result run(String... args) {
    Process p = start(FeatureStoreCli.class.getName(), List.of(args));
    try {
      // stderr goes to a file so that neither pipe can fill up and block the child
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("featurestore %s finished", Arrays.toString(args)).isTrue();
      return new Result(List.of(args), p.exitValue(), out, Files.readString(errFile));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Several commands in one JVM, each with its own stdout, stderr and exit status. */
  List<Result> batch(List<List<String>> commands) {
    try {
      Path in = Files.createTempFile(dir, "batch", ".json");
      Path results = Files.createTempFile(dir, "results", ".json");
      JSON.writeValue(in.toFile(), commands);
      Process p = start(CliBatch.class.getName(), List.of(in.toString(), results.toString()));
      p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
      assertThat(p.waitFor(300, TimeUnit.SECONDS)).as("batch finished").isTrue();
      assertThat(p.exitValue()).as("batch JVM exit; stderr:%n%s", Files.readString(errFile)).isZero();
      List<Result> list = new ArrayList<>();
      for (JsonNode r : JSON.readTree(results.toFile())) {
        List<String> args = new ArrayList<>();
        r.get("args").forEach(a -> args.add(a.asText()));
        list.add(new Result(args, r.get("exit").asInt(), r.get("out").asText(), r.get("err").asText()));
      }
      return list;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private Path errFile;

  private Process start(String main, List<String> args) {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto", "-Xmx512m"));
    command.addAll(jvm);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), main));
    command.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("B2_") || k.startsWith("FEATURESTORE_") || k.startsWith("COLD_"));
    pb.environment().putAll(env);
    try {
      errFile = Files.createTempFile(dir, "stderr", ".txt");
      pb.redirectError(errFile.toFile());
      pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
      return pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
