package dev.featurestore.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the SQL and training-set examples' main methods on a temporary store and checks what they print. */
class SqlExamplesTest {
  @TempDir Path dir;

  interface Main {
    void run() throws Exception;
  }

  private static String output(Main main) throws Exception {
    PrintStream original = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      main.run();
    } finally {
      System.setOut(original);
    }
    String text = bytes.toString(StandardCharsets.UTF_8);
    original.print(text);
    return text;
  }

  @Test
  void sqlQueryExample_queriesTwoSnapshots_andShowsTheSandboxRefusing() throws Exception {
    String out = output(() -> SqlQueryExample.main(new String[] {dir.resolve("sql").toString()}));
    assertThat(out).containsPattern("at snapshot \\d+: \\{n=20000, entities=\\d+, avg_a=-?\\d")
        .containsPattern("at snapshot \\d+: \\{n=30000, ")
        .contains("rows added by the second commit: 10000")
        .containsPattern("scan of before: snapshot \\d+, 1 data file\\(s\\)")
        .containsPattern("scan of after: snapshot \\d+, 2 data file\\(s\\)")
        .contains("sandbox refused: Cannot run query: table function not allowed: read_csv")
        .doesNotContain("NOT refused");
    // runs again on the same directory (the demo table is recreated)
    assertThat(output(() -> SqlQueryExample.main(new String[] {dir.resolve("sql").toString()})))
        .contains("rows added by the second commit: 10000");
  }

  @Test
  void trainingSetExample_joinsAsOf_rebuildsIdentically_andExportsWithLineage() throws Exception {
    Path root = dir.resolve("training");
    String out = output(() -> TrainingSetExample.main(new String[] {root.toString()}));
    assertThat(out)
        .contains("training set (6 rows)")
        .contains("user 1 at 2026-11-03T06:00Z churned=false -> clicks_7d=12 spend_7d=7.5 (from 2026-11-03T06:00Z)")
        .contains("user 1 at 2026-11-04T05:00Z churned=false -> clicks_7d=12 spend_7d=7.5 (from 2026-11-03T06:00Z)")
        .contains("user 2 at 2026-11-01T01:00Z churned=true -> clicks_7d=null spend_7d=null (from null)")
        .contains("user 3 at 2026-11-03T00:00Z churned=false -> clicks_7d=31 spend_7d=15.0 (from 2026-11-02T06:00Z)")
        .contains("user 3 at 2026-11-05T00:00Z churned=true -> clicks_7d=null spend_7d=null (from null)")
        .contains("user 4 at 2026-11-02T00:00Z churned=false -> clicks_7d=null spend_7d=null (from null)")
        .contains("after a late write: identical")
        .containsPattern("exported 6 rows, \\d+ bytes to .*churn-train.parquet")
        .contains("\"parameters\":{\"kind\":\"training_set\"");
    assertThat(root.resolve("exports/churn-train.parquet")).exists();
  }
}
