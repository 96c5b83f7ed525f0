package dev.featurestore.core.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.StorageProvider;
import dev.featurestore.UploadResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * B2's multipart minimum is 5,000,000 bytes, every other provider's 5 MiB (5,242,880 bytes): a part
 * size in that window is B2's alone. On the other providers the upload is refused before any
 * request; on B2 the parts go out at that size and B2's gate lets them through. (The loopback
 * server behind the gates keeps S3's 5 MiB minimum, so a B2 upload in the window cannot complete
 * here; what is checked is what the library sends and what B2's rule accepts.)
 */
class PartSizeWindowTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir Path root;

  static final long MIB5 = 5L * 1024 * 1024;
  static final long B2_MIN = ProviderRules.B2_MIN_PART;

  @ParameterizedTest
  @EnumSource(value = StorageProvider.class, names = {"R2", "MINIO", "S3"})
  void aPartSizeBelow5MiB_isRefusedBeforeAnyRequest_byEveryProviderButB2(StorageProvider provider) throws Exception {
    Path file = randomFile(12_000_000);
    try (FeatureStore store = FeatureStore.builder().root(root).objectStorage(s3.through(provider)).build()) {
      for (long partSize : new long[] {B2_MIN, MIB5 - 1}) {
        String key = "window-" + provider + "-" + partSize + ".bin";
        assertThatThrownBy(() -> store.objects().stage(key).from(file).partSize(partSize).multipartThreshold(0).commit())
            .isExactlyInstanceOf(InvalidArgumentException.class)
            .hasMessage("Cannot upload object: " + provider + " needs parts of at least 5 MiB (5242880 bytes), only B2 "
                + "accepts 5000000: " + partSize);
        assertThat(s3.gate(provider).seen()).as("no request").noneMatch(seen -> seen.target().contains(key));
      }
      UploadResult fiveMiB = store.objects().stage("window-ok-" + provider + ".bin").from(file).partSize(MIB5).multipartThreshold(0).commit();
      assertThat(fiveMiB.parts()).isEqualTo(3);
    }
    assertThat(s3.gate(provider).refusals()).isEmpty();
  }

  @Test
  void b2_sendsPartsOf5000000Bytes_andItsRuleLetsThemThrough() throws Exception {
    Path file = randomFile(12_000_000);
    try (FeatureStore store = FeatureStore.builder().root(root).objectStorage(s3.through(StorageProvider.B2)).build()) {
      assertThatThrownBy(() -> store.objects().stage("b2-window.bin").from(file).partSize(B2_MIN).multipartThreshold(0)
          .commit()).as("the loopback server's own 5 MiB minimum, not B2's").hasMessageContaining("EntityTooSmall");
    }
    ProviderGate b2 = s3.gate(StorageProvider.B2);
    assertThat(b2.seen()).filteredOn(seen -> seen.method().equals("PUT") && seen.target().contains("partNumber="))
        .extracting(seen -> seen.headers().getOrDefault("x-amz-decoded-content-length", seen.headers().get("content-length")))
        .containsExactlyInAnyOrder("5000000", "5000000", "2000000");
    // B2's rule judges the parts at the complete: it was sent, and the rule let it through to the server
    assertThat(b2.seen()).as("CompleteMultipartUpload")
        .anyMatch(seen -> seen.method().equals("POST") && seen.target().contains("uploadId="));
    assertThat(b2.refused(ProviderRules.PART_TOO_SMALL)).as("B2's rule accepts 5,000,000-byte parts").isZero();
    assertThat(b2.refusals()).isEmpty();
  }

  private Path randomFile(int bytes) throws Exception {
    byte[] data = new byte[bytes];
    new Random(bytes).nextBytes(data);
    return Files.write(root.resolve("window-" + bytes + ".bin"), data);
  }
}
