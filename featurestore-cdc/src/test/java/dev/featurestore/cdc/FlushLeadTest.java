package dev.featurestore.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How early a timed batch is sealed: by the longest of the last five flushes, within half the interval. */
class FlushLeadTest {
  @Test
  void beforeAnyFlush_halfTheInterval() {
    assertThat(new Flusher.FlushLead(1_000).millis()).isEqualTo(500);
  }

  @Test
  void theLongestOfTheLastFive_cappedAtHalfTheInterval() {
    Flusher.FlushLead lead = new Flusher.FlushLead(1_000);
    lead.took(80);
    assertThat(lead.millis()).isEqualTo(80);
    lead.took(120);
    lead.took(60);
    assertThat(lead.millis()).isEqualTo(120);
    lead.took(700);
    assertThat(lead.millis()).isEqualTo(500);
    for (int i = 0; i < 5; i++) {
      lead.took(40); // the slow flushes age out
    }
    assertThat(lead.millis()).isEqualTo(40);
  }

  @Test
  void noInterval_noLead() {
    Flusher.FlushLead lead = new Flusher.FlushLead(0);
    lead.took(100);
    assertThat(lead.millis()).isZero();
  }
}
