package dev.featurestore.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HarnessTest {
  @AfterEach
  void clearOnly() {
    System.clearProperty("only");
  }

  @Test
  void resultLine_hasTheConventionalShape() {
    assertThat(Harness.resultLine("ingest", new Harness.Medians(2_000_000, 1_000_000), "rows/s"))
        .isEqualTo("RESULT ingest ours=2000000 baseline=1000000 unit=rows/s ratio=2.000");
    assertThat(Harness.resultLine("commit", new Harness.Medians(61.5, 82.0), "ms"))
        .isEqualTo("RESULT commit ours=61.50 baseline=82.00 unit=ms ratio=0.750");
  }

  @Test
  void resultLine_sideNotRun_isNotAvailable() {
    assertThat(Harness.resultLine("commit", new Harness.Medians(Double.NaN, 98.52), "ms"))
        .isEqualTo("RESULT commit ours=n/a baseline=98.52 unit=ms ratio=n/a");
  }

  @Test
  void alternate_warmsUpAlternatesFirstSideAndTakesMediansOfMeasuredRounds() throws Exception {
    List<String> calls = new ArrayList<>();
    Harness.Medians medians = Harness.alternate("t", "ms", 2, 3,
        i -> {
          calls.add("ours" + i);
          return i < 2 ? 1000 : 10 * i; // warm-ups are slow and must not count
        },
        i -> {
          calls.add("baseline" + i);
          return 100 + i;
        });

    assertThat(calls).containsExactly(
        "ours0", "baseline0", "baseline1", "ours1", "ours2", "baseline2", "baseline3", "ours3", "ours4", "baseline4");
    assertThat(medians.ours()).isEqualTo(30.0);
    assertThat(medians.baseline()).isEqualTo(103.0);
  }

  @Test
  void alternate_onlyBaseline_skipsOurs() throws Exception {
    System.setProperty("only", "baseline");
    List<String> calls = new ArrayList<>();

    Harness.Medians medians = Harness.alternate("t", "ms", 1, 2, i -> {
      calls.add("ours");
      return 1;
    }, i -> {
      calls.add("baseline");
      return 5;
    });

    assertThat(calls).containsOnly("baseline").hasSize(3);
    assertThat(medians.ours()).isNaN();
    assertThat(medians.baseline()).isEqualTo(5.0);
  }

  @Test
  void median_ofOddAndEvenCounts() {
    assertThat(Harness.median(new double[] {3, 1, 2})).isEqualTo(2.0);
    assertThat(Harness.median(new double[] {4, 1, 3, 2})).isEqualTo(2.5);
    assertThat(Harness.median(new long[] {7})).isEqualTo(7.0);
    assertThat(Harness.median(new double[0])).isNaN();
  }
}
