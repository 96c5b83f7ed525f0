package dev.featurestore.cdc;

import dev.featurestore.InvalidStateException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A child JVM for {@link WalLockTest}: opens shard {@code args[1]} of the write-ahead log under
 * {@code args[0]} and prints {@code OPEN}, holding it until it reads a line, or prints
 * {@code REFUSED <message>} if another pipeline holds the shard.
 */
public final class WalLockChild {
  private WalLockChild() {}

  public static void main(String[] args) throws Exception {
    try (WriteAheadLog log = new WriteAheadLog(Path.of(args[0]), args[1], FsyncPolicy.NONE, Hooks.NONE)) {
      System.out.println("OPEN");
      System.out.flush();
      new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    } catch (InvalidStateException e) {
      System.out.println("REFUSED " + e.getMessage());
    }
  }
}
