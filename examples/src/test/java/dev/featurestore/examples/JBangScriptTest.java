package dev.featurestore.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@code examples/jbang/Quickstart.java} and the {@code featurestore} command (by its Maven
 * coordinates) with JBang itself ({@code dev.jbang:jbang-cli}, a test dependency resolved from
 * Maven Central), and the command's shaded jar with {@code java -jar}, so the notebook path and
 * the command line's launch paths cannot silently break.
 *
 * <p>What {@code ./mvnw -B -DskipTests install} would put in the local Maven repository is laid
 * out here in a private one instead (the reactor's freshly packaged api and core jars, their poms,
 * the parent and the BOM), so the build never writes to the user's {@code ~/.m2}. Third-party
 * dependencies come from the user's Maven repository read as a file repository (the build has
 * just resolved them), then from Maven Central. Runs when {@code FEATURESTORE_TEST_JBANG} is set
 * ({@code .ci/run} sets it); skips otherwise.
 */
class JBangScriptTest {
  private static final String VERSION = "0.1.0-SNAPSHOT";

  @TempDir Path dir;
  /**
   * The private Maven repository and JBang's cache, shared by the JBang runs of this class: what
   * one run copied from the user's repository (Iceberg, the AWS SDK, DuckDB ...) the next finds.
   */
  @TempDir static Path shared;

  @Test
  void quickstartScript_runsWithJBang() throws Exception {
    assumeThat(System.getenv("FEATURESTORE_TEST_JBANG")).as("FEATURESTORE_TEST_JBANG (set by .ci/run)").isNotBlank();
    Path project = Path.of(System.getProperty("featurestore.project", "..")).toAbsolutePath().normalize();
    Path coreJar = project.resolve("featurestore-core/target/featurestore-core-" + VERSION + ".jar");
    assumeThat(coreJar).as("packaged core jar (run in the reactor: ./mvnw -B verify)").exists();

    Path repo = shared.resolve("m2");
    install(repo, "featurestore-parent", project.resolve("pom.xml"), null);
    install(repo, "featurestore-bom", project.resolve("featurestore-bom/pom.xml"), null);
    install(repo, "featurestore-api", project.resolve("featurestore-api/pom.xml"),
        project.resolve("featurestore-api/target/featurestore-api-" + VERSION + ".jar"));
    install(repo, "featurestore-core", project.resolve("featurestore-core/pom.xml"), coreJar);

    Path userRepo = Path.of(System.getProperty("user.home"), ".m2", "repository");
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", jbangClasspath(), "dev.jbang.Main",
        "run", "--fresh", "--quiet"));
    if (Files.isDirectory(userRepo)) {
      command.addAll(List.of("--repos", "usercache=" + userRepo.toUri()));
    }
    command.add(project.resolve("examples/jbang/Quickstart.java").toString());
    command.add(dir.resolve("store").toString());

    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("JBANG_REPO", repo.toString());        // the private local repository
    pb.environment().put("JBANG_DIR", shared.resolve("jbang").toString()); // JBang's own cache
    pb.environment().put("JBANG_NO_VERSION_CHECK", "true");
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    long start = System.nanoTime();
    Process process = pb.start();
    String prepared = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(300, TimeUnit.SECONDS)).isTrue();
    // JBang's Java side resolves, compiles and prints the command to run, exiting with 255:
    // its shell wrapper (the `jbang` script) then runs that command. Do what the wrapper does.
    assertThat(process.exitValue()).as("jbang output:%n%s", prepared).isEqualTo(255);
    String[] lines = prepared.strip().split("\\R");
    String launch = lines[lines.length - 1];
    assertThat(launch).contains("java").contains("Quickstart");
    Process script = new ProcessBuilder("bash", "-c", launch).redirectErrorStream(true).start();
    String output = new String(script.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(script.waitFor(300, TimeUnit.SECONDS)).isTrue();
    Files.createDirectories(Path.of("target"));
    Files.writeString(Path.of("target", "jbang-quickstart.log"), prepared + output);
    assertThat(script.exitValue()).as("script output:%n%s", output).isZero();
    assertThat(output).contains("rows after rollback: 10000").contains("JBANG QUICKSTART OK");
    System.out.printf("JBang quickstart ran in %d ms%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
  }

  /**
   * {@code featurestore} through JBang by its Maven coordinates, as the README's install line runs
   * it ({@code jbang app install ... dev.featurestore:featurestore-cli:<version>}): JBang resolves
   * the cli jar and its dependencies from the private repository (our modules) and the user's
   * (third-party, already resolved by the build), reads the jar's Main-Class and runs it against a
   * store built here. Same switch and repositories as {@link #quickstartScript_runsWithJBang}.
   */
  @Test
  void cli_runsWithJBangByCoordinates() throws Exception {
    assumeThat(System.getenv("FEATURESTORE_TEST_JBANG")).as("FEATURESTORE_TEST_JBANG (set by .ci/run)").isNotBlank();
    Path project = Path.of(System.getProperty("featurestore.project", "..")).toAbsolutePath().normalize();
    Path cliJar = project.resolve("featurestore-cli/target/featurestore-cli-" + VERSION + ".jar");
    assumeThat(cliJar).as("packaged cli jar (run in the reactor: ./mvnw -B verify)").exists();
    Path repo = shared.resolve("m2");
    install(repo, "featurestore-parent", project.resolve("pom.xml"), null);
    install(repo, "featurestore-bom", project.resolve("featurestore-bom/pom.xml"), null);
    for (String module : List.of("featurestore-api", "featurestore-core", "featurestore-cdc", "featurestore-duckdb", "featurestore-cli")) {
      install(repo, module, project.resolve(module + "/pom.xml"), project.resolve(module + "/target/" + module + "-" + VERSION + ".jar"));
    }
    Path store = dir.resolve("cli-store");
    long snapshot = buildStore(store);

    Path userRepo = Path.of(System.getProperty("user.home"), ".m2", "repository");
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", jbangClasspath(), "dev.jbang.Main",
        "run", "--quiet"));
    if (Files.isDirectory(userRepo)) {
      command.addAll(List.of("--repos", "usercache=" + userRepo.toUri()));
    }
    command.addAll(List.of("dev.featurestore:featurestore-cli:" + VERSION,
        "--root", store.toString(), "history", "dev.example", "--output", "json"));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("JBANG_REPO", repo.toString());
    pb.environment().put("JBANG_DIR", shared.resolve("jbang").toString());
    pb.environment().put("JBANG_NO_VERSION_CHECK", "true");
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    Process process = pb.start();
    String prepared = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(300, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as("jbang output:%n%s", prepared).isEqualTo(255); // the wrapper runs the last line
    String[] lines = prepared.strip().split("\\R");
    String launch = lines[lines.length - 1];
    assertThat(launch).contains("java").contains("featurestore-cli");
    Process cli = new ProcessBuilder("bash", "-c", launch).start();
    String out = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(cli.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(cli.waitFor(300, TimeUnit.SECONDS)).isTrue();
    assertThat(cli.exitValue()).as("stdout:%n%s%nstderr:%n%s", out, err).isZero();
    assertThat(out).contains("\"snapshot_id\" : " + snapshot, "\"added_rows\" : 100");
  }

  /**
   * The shaded {@code featurestore-cli-<version>-all.jar} runs with {@code java -jar} alone (no
   * other jar, no network): the service files of every module are merged, so the store opens.
   */
  @Test
  void cli_runsAsShadedJar() throws Exception {
    Path project = Path.of(System.getProperty("featurestore.project", "..")).toAbsolutePath().normalize();
    Path jar = project.resolve("featurestore-cli/target/featurestore-cli-" + VERSION + "-all.jar");
    assumeThat(jar).as("shaded cli jar (run in the reactor: ./mvnw -B verify)").exists();
    Path store = dir.resolve("jar-store");
    long snapshot = buildStore(store);
    Process cli = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-jar", jar.toString(), "--root", store.toString(), "history", "dev.example", "--output", "json").start();
    String out = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(cli.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(cli.waitFor(300, TimeUnit.SECONDS)).isTrue();
    assertThat(cli.exitValue()).as("stdout:%n%s%nstderr:%n%s", out, err).isZero();
    assertThat(out).contains("\"snapshot_id\" : " + snapshot, "\"added_rows\" : 100");
    assertThat(err).isEmpty();
  }

  /** A store with one table, {@code dev.example}, and one commit of 100 synthetic rows; returns its snapshot id. */
  private static long buildStore(Path root) {
    try (FeatureStore store = FeatureStore.openLocal(root)) {
      FeatureTable table = store.createTable(
          TableDefinition.builder(TableId.of("dev", "example"), SyntheticFeatures.schema()).build());
      return table.ingest().synthetic(100, 7).commit().snapshotId().orElseThrow();
    }
  }

  /** JBang's own jars: the test classpath entries of dev.jbang and what it brings, not ours. */
  private static String jbangClasspath() {
    String classpath = System.getProperty("jbang.classpath");
    assertThat(classpath).as("jbang.classpath (set by the examples pom)").isNotBlank();
    return Arrays.stream(classpath.split(File.pathSeparator)).collect(Collectors.joining(File.pathSeparator));
  }

  private static void install(Path repo, String artifactId, Path pom, Path jar) throws IOException {
    Path folder = repo.resolve("dev/featurestore/" + artifactId + "/" + VERSION);
    Files.createDirectories(folder);
    Files.copy(pom, folder.resolve(artifactId + "-" + VERSION + ".pom"), StandardCopyOption.REPLACE_EXISTING);
    if (jar != null) {
      Files.copy(jar, folder.resolve(artifactId + "-" + VERSION + ".jar"), StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
