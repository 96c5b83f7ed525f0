package dev.featurestore.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

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
 * Runs {@code examples/jbang/Quickstart.java} with JBang itself ({@code dev.jbang:jbang-cli}, a
 * test dependency resolved from Maven Central), so the notebook path cannot silently break.
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

  @Test
  void quickstartScript_runsWithJBang() throws Exception {
    assumeThat(System.getenv("FEATURESTORE_TEST_JBANG")).as("FEATURESTORE_TEST_JBANG (set by .ci/run)").isNotBlank();
    Path project = Path.of(System.getProperty("featurestore.project", "..")).toAbsolutePath().normalize();
    Path coreJar = project.resolve("featurestore-core/target/featurestore-core-" + VERSION + ".jar");
    assumeThat(coreJar).as("packaged core jar (run in the reactor: ./mvnw -B verify)").exists();

    Path repo = dir.resolve("m2");
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
    pb.environment().put("JBANG_DIR", dir.resolve("jbang").toString()); // JBang's own cache
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
