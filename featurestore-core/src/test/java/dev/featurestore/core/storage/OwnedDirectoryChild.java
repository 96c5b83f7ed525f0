package dev.featurestore.core.storage;

import java.nio.file.Path;

/**
 * A child JVM for {@link OwnedDirectoryTest}: owns {@code args[1]} ({@code claim} or
 * {@code private}), prints {@code OWNED <path>} and holds it until it reads a line, its standard input ends
 * or it is killed; then prints {@code CLOSED}.
 */
public final class OwnedDirectoryChild {
  private OwnedDirectoryChild() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[1]);
    try (OwnedDirectory owned = args[0].equals("claim") ? OwnedDirectory.claim(dir, "test directory")
        : OwnedDirectory.claimOrPrivate(dir, "test directory")) {
      System.out.println("OWNED " + owned.path());
      System.out.flush();
      // held until the parent sends a line or closes our input
      new java.io.BufferedReader(new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8))
          .readLine();
    } catch (RuntimeException e) {
      System.out.println("FAILED " + e.getClass().getSimpleName() + " " + e.getMessage());
      return;
    }
    System.out.println("CLOSED");
  }
}
