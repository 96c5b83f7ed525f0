package dev.featurestore.cli;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Progress of long work on standard error: a bar redrawn in place on a terminal, plain lines
 * when standard error goes to a pipe or a file (logs, CI), nothing with {@code --progress off}.
 * Standard output stays the command's answer either way. Not thread-safe: one command, one
 * listener thread.
 */
final class Progress {
  enum Mode { auto, bar, plain, off }

  private static final int WIDTH = 30;

  private final PrintStream err;
  private final Mode mode;
  private final String task;
  private int lastLength;
  private boolean drawn;

  private Progress(PrintStream err, Mode mode, String task) {
    this.err = err;
    this.mode = mode;
    this.task = task;
  }

  /** {@code auto} is a bar when the JVM has a console (a terminal on both ends), else plain lines. */
  static Progress start(PrintStream err, Mode mode, String task) {
    Mode resolved = mode == Mode.auto ? (System.console() != null ? Mode.bar : Mode.plain) : mode;
    return new Progress(err, resolved, task);
  }

  /**
   * Reports progress: {@code done} of {@code total} (total 0 or less: unknown, no percentage) and
   * a short detail such as "12,000 rows, 2 files".
   */
  void update(long done, long total, String detail) {
    switch (mode) {
      case off -> { }
      case plain -> err.println(task + ": " + (total > 0 ? done + "/" + total + " " : "") + detail);
      default -> {
        StringBuilder line = new StringBuilder("\r").append(task).append(' ');
        if (total > 0) {
          int filled = (int) Math.min(WIDTH, WIDTH * done / total);
          line.append('[').append("#".repeat(filled)).append(".".repeat(WIDTH - filled)).append("] ")
              .append(String.format(Locale.ROOT, "%3d%% ", 100 * Math.min(done, total) / total));
        }
        line.append(detail);
        int length = line.length();
        line.append(" ".repeat(Math.max(0, lastLength - length)));
        lastLength = length;
        err.print(line);
        err.flush();
        drawn = true;
      }
    }
  }

  /** Ends the bar's line (a terminal's next output starts on a fresh line). */
  void finish() {
    if (drawn) {
      err.println();
      drawn = false;
    }
  }

  static String count(long n, String unit) {
    return String.format(Locale.ROOT, "%,d %s", n, unit);
  }
}
