package dev.featurestore.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.InvalidStateException;
import dev.featurestore.core.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write-ahead log's shard lock against a second real process. A file lock is the process's:
 * closing any channel on the lock file releases it (POSIX record locks), so a second pipeline on
 * the shard in the same JVM, refused, must not open and close a channel on it. It did: after that
 * refusal another process opened the shard while the first pipeline still wrote to it.
 */
class WalLockTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void refusedSecondOpenInThisJvm_keepsTheShardLocked_forOtherProcesses() throws Exception {
    Path wal = dir.resolve("wal");
    try (WriteAheadLog first = new WriteAheadLog(wal, "s", FsyncPolicy.NONE, Hooks.NONE)) {
      assertThatThrownBy(() -> new WriteAheadLog(wal, "s", FsyncPolicy.NONE, Hooks.NONE))
          .isExactlyInstanceOf(InvalidStateException.class)
          .hasMessage("Cannot open CDC pipeline: shard s is in use by another pipeline: " + wal.resolve("s"));
      try (ChildJvm child = ChildJvm.start(WalLockChild.class, dir, wal.toString(), "s")) {
        assertThat(child.await("", WAIT)).contains(
            "REFUSED Cannot open CDC pipeline: shard s is in use by another pipeline: " + wal.resolve("s"));
      }
    }
    // closed: the shard is free for another process, and then for this one again
    try (ChildJvm child = ChildJvm.start(WalLockChild.class, dir, wal.toString(), "s")) {
      assertThat(child.await("", WAIT)).contains("OPEN");
      assertThatThrownBy(() -> new WriteAheadLog(wal, "s", FsyncPolicy.NONE, Hooks.NONE))
          .isExactlyInstanceOf(InvalidStateException.class);
      child.send("close");
      assertThat(child.waitFor(WAIT)).contains(0);
    }
    new WriteAheadLog(wal, "s", FsyncPolicy.NONE, Hooks.NONE).close();
  }
}
