package dev.featurestore.core.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.InvalidStateException;
import dev.featurestore.core.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Directories one instance owns: in this JVM and against a second real JVM process (file locks
 * are held by the process, so only a second process shows that the lock is real).
 */
class OwnedDirectoryTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void claim_inUseInThisJvm_fails_untilClosed() {
    Path shared = dir.resolve("shared");
    OwnedDirectory first = OwnedDirectory.claim(shared, "test directory");
    assertThat(first.path()).isEqualTo(shared.toAbsolutePath().normalize());
    assertThat(first.isPrivate()).isFalse();
    assertThatThrownBy(() -> OwnedDirectory.claim(shared, "test directory"))
        .isExactlyInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot open test directory: directory in use by another store: " + first.path());
    // the same directory by another spelling is the same directory
    assertThatThrownBy(() -> OwnedDirectory.claim(dir.resolve("x/../shared"), "test directory"))
        .isExactlyInstanceOf(InvalidStateException.class);
    first.close();
    first.close(); // twice is fine
    try (OwnedDirectory second = OwnedDirectory.claim(shared, "test directory")) {
      assertThat(second.path()).isEqualTo(first.path());
    }
  }

  @Test
  void claimOrPrivate_inUse_givesAPrivateDirectory_deletedOnClose() throws Exception {
    Path shared = dir.resolve("shared");
    try (OwnedDirectory first = OwnedDirectory.claimOrPrivate(shared, "test directory")) {
      OwnedDirectory second = OwnedDirectory.claimOrPrivate(shared, "test directory");
      OwnedDirectory third = OwnedDirectory.claimOrPrivate(shared, "test directory");
      assertThat(first.isPrivate()).isFalse();
      assertThat(second.isPrivate()).isTrue();
      assertThat(second.path().getParent()).isEqualTo(first.path().resolve("private"));
      assertThat(third.path()).isNotEqualTo(second.path());
      Files.writeString(second.path().resolve("file.parquet"), "x");
      Files.createDirectories(second.path().resolve("tmp/nested"));
      second.close();
      assertThat(second.path()).doesNotExist();
      assertThat(third.path()).isDirectory();
      third.close();
      try (var left = Files.list(first.path().resolve("private"))) {
        assertThat(left).isEmpty();
      }
      // the private directory of a live instance is not stale
      try (OwnedDirectory fourth = OwnedDirectory.claimOrPrivate(shared, "test directory");
          OwnedDirectory fifth = OwnedDirectory.claimOrPrivate(shared, "test directory")) {
        assertThat(fourth.path()).isDirectory();
        assertThat(fifth.path()).isDirectory();
      }
    }
  }

  @Test
  void otherProcess_ownsTheDirectory_claimFails_privateDiffers_untilItIsKilled() throws Exception {
    Path shared = dir.resolve("shared").toAbsolutePath().normalize();
    try (ChildJvm child = ChildJvm.start(OwnedDirectoryChild.class, dir, "claim", shared.toString())) {
      assertThat(child.await("OWNED ", WAIT)).contains("OWNED " + shared);
      assertThatThrownBy(() -> OwnedDirectory.claim(shared, "test directory"))
          .isExactlyInstanceOf(InvalidStateException.class)
          .hasMessage("Cannot open test directory: directory in use by another store: " + shared);
      try (OwnedDirectory mine = OwnedDirectory.claimOrPrivate(shared, "test directory")) {
        assertThat(mine.isPrivate()).isTrue();
        assertThat(mine.path().getParent()).isEqualTo(shared.resolve("private"));
      }
      // refused twice in this JVM and still held by the child (a refused claim closes no channel
      // that would drop a lock): a second child is refused too
      try (ChildJvm second = ChildJvm.start(OwnedDirectoryChild.class, dir, "claim", shared.toString())) {
        assertThat(second.await("FAILED ", WAIT)).contains(
            "FAILED InvalidStateException Cannot open test directory: directory in use by another store: " + shared);
      }
      child.kill(); // SIGKILL: the process never closes, its lock ends with it
    }
    try (OwnedDirectory mine = OwnedDirectory.claim(shared, "test directory")) {
      assertThat(mine.isPrivate()).isFalse();
    }
  }

  @Test
  void thisJvmOwnsTheDirectory_otherProcessIsRefused_evenAfterARefusedClaimHere() throws Exception {
    Path shared = dir.resolve("shared").toAbsolutePath().normalize();
    try (OwnedDirectory mine = OwnedDirectory.claim(shared, "test directory")) {
      assertThatThrownBy(() -> OwnedDirectory.claim(shared, "test directory"))
          .isExactlyInstanceOf(InvalidStateException.class);
      try (ChildJvm child = ChildJvm.start(OwnedDirectoryChild.class, dir, "claim", shared.toString())) {
        assertThat(child.await("FAILED ", WAIT)).contains(
            "FAILED InvalidStateException Cannot open test directory: directory in use by another store: " + shared);
      }
    }
  }

  @Test
  void privateDirectoryOfAKilledProcess_isDeletedByTheNextClaim_notWhileItLives() throws Exception {
    Path shared = dir.resolve("shared").toAbsolutePath().normalize();
    try (OwnedDirectory mine = OwnedDirectory.claim(shared, "test directory")) {
      Path theirs;
      try (ChildJvm child = ChildJvm.start(OwnedDirectoryChild.class, dir, "private", shared.toString())) {
        String line = child.await("OWNED ", WAIT).orElseThrow();
        theirs = Path.of(line.substring("OWNED ".length()));
        assertThat(theirs.getParent()).isEqualTo(shared.resolve("private"));
        Files.writeString(theirs.resolve("partial.part"), "x");
        // alive: another claim leaves it alone
        try (OwnedDirectory other = OwnedDirectory.claimOrPrivate(shared, "test directory")) {
          assertThat(other.path()).isNotEqualTo(theirs);
        }
        assertThat(theirs.resolve("partial.part")).exists();
        child.kill();
      }
      assertThat(theirs).isDirectory(); // a killed process deletes nothing
      try (OwnedDirectory other = OwnedDirectory.claimOrPrivate(shared, "test directory")) {
        assertThat(theirs).doesNotExist();
        assertThat(shared.resolve("private").resolve(theirs.getFileName() + ".lock")).doesNotExist();
      }
    }
  }

  @Test
  void privateDirectoryOfAClosedProcess_isDeletedByIt() throws Exception {
    Path shared = dir.resolve("shared").toAbsolutePath().normalize();
    try (OwnedDirectory mine = OwnedDirectory.claim(shared, "test directory")) {
      try (ChildJvm child = ChildJvm.start(OwnedDirectoryChild.class, dir, "private", shared.toString())) {
        Path theirs = Path.of(child.await("OWNED ", WAIT).orElseThrow().substring("OWNED ".length()));
        assertThat(theirs).isDirectory();
        child.send("close");
        assertThat(child.await("CLOSED", WAIT)).isPresent();
        assertThat(child.waitFor(WAIT)).contains(0);
        assertThat(theirs).doesNotExist();
      }
    }
  }
}
