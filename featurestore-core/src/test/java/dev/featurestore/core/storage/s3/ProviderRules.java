package dev.featurestore.core.storage.s3;

import dev.featurestore.StorageProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What each provider refuses that a plain S3 server (s3proxy) accepts, as the provider documents
 * it: one rule set per provider, checked in order before a request reaches the server, the first
 * refusal answered as that provider answers it (status, error code, message).
 *
 * <ul>
 *   <li><b>B2</b>: a signature for another region (400 AuthorizationHeaderMalformed naming the
 *       bucket's region); any flexible checksum header (400 InvalidArgument "Unsupported header");
 *       conditional writes (501 NotImplemented); multipart parts under 5,000,000 bytes but the last.
 *   <li><b>R2</b> (developers.cloudflare.com/r2/api/s3/api/, /r2/objects/multipart-objects/,
 *       /r2/examples/aws/aws-sdk-java/): a region other than {@code auto} (or its aliases
 *       {@code us-east-1} and empty, or a location hint) is 400 InvalidRegionName; headers R2 does
 *       not implement (flexible checksums, which Cloudflare documents as incompatible with Java SDK
 *       2.30+ defaults; ACLs, tagging, SSE-KMS, object lock, website redirects, request payer,
 *       expected bucket owner) are 501 NotImplemented; a storage class other than STANDARD or
 *       STANDARD_IA is 400 InvalidStorageClass; multipart parts under 5 MiB but the last, or
 *       non-trailing parts of unequal size (or a last part larger than them), fail the
 *       CompleteMultipartUpload (400 EntityTooSmall / InvalidPart).
 *   <li><b>MinIO</b> (a self-hosted server without {@code MINIO_DOMAIN}, at its default region):
 *       a signature for another region than {@code us-east-1} (400 AuthorizationHeaderMalformed);
 *       virtual-host addressing (the bucket in the Host header: the first path segment is taken
 *       as the bucket, 404 NoSuchBucket); DeleteObjects without {@code Content-MD5} (400
 *       MissingContentMD5, every release before 2025-01, which self-hosted servers still run);
 *       parts under 5 MiB but the last.
 *   <li><b>S3</b> (AWS): a signature for another region (400 AuthorizationHeaderMalformed naming the
 *       bucket's region); {@code x-amz-sdk-checksum-algorithm} without the checksum it announces
 *       (400 InvalidRequest); DeleteObjects with neither {@code Content-MD5} nor a checksum header
 *       (400 InvalidRequest); parts under 5 MiB but the last.
 * </ul>
 *
 * <p>Multipart rules need what was uploaded: the gate reports each request it forwards
 * ({@link #forwarded}), and the part sizes of each open upload are kept until it completes or
 * aborts. Thread-safe. Public for its rule names ({@link ProviderGate#refused(String)}).
 */
public final class ProviderRules {
  public static final String REGION = "region";
  public static final String CHECKSUM_HEADER = "checksum-header";
  public static final String CONDITIONAL_WRITE = "conditional-write";
  public static final String UNSUPPORTED_HEADER = "unsupported-header";
  public static final String STORAGE_CLASS = "storage-class";
  public static final String PART_TOO_SMALL = "part-too-small";
  public static final String UNEQUAL_PARTS = "unequal-parts";
  public static final String DELETE_WITHOUT_MD5 = "delete-objects-without-md5";
  public static final String DELETE_WITHOUT_INTEGRITY = "delete-objects-without-integrity";
  public static final String ALGORITHM_WITHOUT_CHECKSUM = "algorithm-without-checksum";
  public static final String VIRTUAL_HOST = "virtual-host";

  static final long MIB_5 = 5L * 1024 * 1024;
  static final long B2_MIN_PART = 5_000_000L;
  /** R2's region and what it accepts as aliases of it (an empty region, us-east-1, the location hints). */
  static final Set<String> R2_REGIONS = Set.of("auto", "us-east-1", "", "wnam", "enam", "weur", "eeur", "apac", "oc");
  /**
   * Request headers of the object operations R2 lists as not implemented; the first two (flexible
   * checksums) pass on DeleteObjects, which the SDK signs with a CRC32 even in the
   * {@code when_required} mode Cloudflare documents for Java SDK 2.30+ (so R2 must accept it there).
   */
  static final List<String> R2_NOT_IMPLEMENTED = List.of("x-amz-checksum-", "x-amz-sdk-checksum-algorithm", "x-amz-acl",
      "x-amz-grant-", "x-amz-tagging", "x-amz-server-side-encryption", "x-amz-object-lock-",
      "x-amz-website-redirect-location", "x-amz-request-payer", "x-amz-expected-bucket-owner");
  private static final String NOT_IMPLEMENTED_PREFIX_SSE_C = "x-amz-server-side-encryption-customer-";

  /** A refusal as the provider answers it: status line, the error body's code and message, extra XML elements. */
  record Answer(String rule, int status, String reason, String code, String message, String extraXml) {}

  private interface Rule {
    Optional<Answer> check(HttpHead request);
  }

  private final StorageProvider provider;
  private final List<Rule> rules = new ArrayList<>();
  /** Part sizes of each open multipart upload (upload id -> part number -> bytes), as forwarded. */
  private final Map<String, SortedMap<Integer, Long>> uploads = new ConcurrentHashMap<>();

  private ProviderRules(StorageProvider provider) {
    this.provider = provider;
  }

  /** The rules of {@code provider} for {@code bucket} in {@code region}. */
  static ProviderRules of(StorageProvider provider, String region, String bucket) {
    ProviderRules r = new ProviderRules(provider);
    switch (provider) {
      case B2 -> {
        r.rules.add(regionIs(region, awsRegionMessage(region)));
        r.rules.add(req -> firstHeader(req, List.of("x-amz-checksum-", "x-amz-sdk-checksum-algorithm")).map(h ->
            new Answer(CHECKSUM_HEADER, 400, "Bad Request", "InvalidArgument",
                "Unsupported header '" + h + "' received for this API call.", "")));
        r.rules.add(req -> req.method().equals("PUT") && (req.header("if-none-match") != null || req.header("if-match") != null)
            ? Optional.of(new Answer(CONDITIONAL_WRITE, 501, "Not Implemented", "NotImplemented",
                "A header you provided implies functionality that is not implemented", ""))
            : Optional.empty());
        r.rules.add(r.partsAtLeast(B2_MIN_PART));
      }
      case R2 -> {
        r.rules.add(req -> {
          String signed = req.signedRegion();
          return signed == null || R2_REGIONS.contains(signed) ? Optional.empty()
              : Optional.of(new Answer(REGION, 400, "Bad Request", "InvalidRegionName", "The region name '" + signed
                  + "' is not valid. Must be one of: wnam, enam, weur, eeur, apac, oc, auto", ""));
        });
        r.rules.add(req -> firstHeader(req, isDeleteObjects(req) ? R2_NOT_IMPLEMENTED.subList(2, R2_NOT_IMPLEMENTED.size())
            : R2_NOT_IMPLEMENTED).map(h -> new Answer(UNSUPPORTED_HEADER, 501, "Not Implemented", "NotImplemented",
                "Header '" + h + "' with value '" + req.header(h) + "' not implemented", "")));
        r.rules.add(req -> {
          String storageClass = req.header("x-amz-storage-class");
          return storageClass == null || storageClass.equals("STANDARD") || storageClass.equals("STANDARD_IA")
              ? Optional.empty()
              : Optional.of(new Answer(STORAGE_CLASS, 400, "Bad Request", "InvalidStorageClass",
                  "The storage class you specified is not valid", ""));
        });
        r.rules.add(r.partsAtLeast(MIB_5));
        r.rules.add(r.equalParts());
      }
      case MINIO -> {
        r.rules.add(regionIs("us-east-1",
            "The authorization header is malformed; the region is wrong; expecting 'us-east-1'."));
        r.rules.add(req -> {
          String host = req.header("host");
          if (host == null || !host.startsWith(bucket + ".")) {
            return Optional.empty();
          }
          String first = req.path().replaceFirst("^/", "").split("/", 2)[0];
          return Optional.of(new Answer(VIRTUAL_HOST, 404, "Not Found", "NoSuchBucket",
              "The specified bucket does not exist", "<BucketName>" + first + "</BucketName>"));
        });
        r.rules.add(req -> isDeleteObjects(req) && req.header("content-md5") == null
            ? Optional.of(new Answer(DELETE_WITHOUT_MD5, 400, "Bad Request", "MissingContentMD5",
                "Missing required header for this request: Content-Md5.", ""))
            : Optional.empty());
        r.rules.add(r.partsAtLeast(MIB_5));
      }
      case S3 -> {
        r.rules.add(regionIs(region, awsRegionMessage(region)));
        r.rules.add(req -> req.header("x-amz-sdk-checksum-algorithm") != null && req.header("x-amz-trailer") == null
            && firstHeader(req, List.of("x-amz-checksum-")).filter(h -> !h.equals("x-amz-checksum-mode")).isEmpty()
            ? Optional.of(new Answer(ALGORITHM_WITHOUT_CHECKSUM, 400, "Bad Request", "InvalidRequest",
                "x-amz-sdk-checksum-algorithm specified, but no corresponding x-amz-checksum-* or x-amz-trailer headers"
                    + " were found.", ""))
            : Optional.empty());
        r.rules.add(req -> isDeleteObjects(req) && req.header("content-md5") == null
            && firstHeader(req, List.of("x-amz-checksum-")).isEmpty()
            ? Optional.of(new Answer(DELETE_WITHOUT_INTEGRITY, 400, "Bad Request", "InvalidRequest",
                "Missing required header for this request: Content-MD5 OR x-amz-checksum-*", ""))
            : Optional.empty());
        r.rules.add(r.partsAtLeast(MIB_5));
      }
      default -> throw new IllegalArgumentException("Cannot model provider: unknown provider: " + provider);
    }
    return r;
  }

  StorageProvider provider() {
    return provider;
  }

  /** The first refusal of {@code request}, if the provider refuses it. */
  Optional<Answer> check(HttpHead request) {
    for (Rule rule : rules) {
      Optional<Answer> answer = rule.check(request);
      if (answer.isPresent()) {
        return answer;
      }
    }
    return Optional.empty();
  }

  /** Notes a request the gate forwards: the size of an uploaded part, the end of an upload. */
  void forwarded(HttpHead request) {
    Map<String, String> query = request.query();
    String uploadId = query.get("uploadId");
    if (uploadId == null) {
      return;
    }
    if (request.method().equals("PUT") && query.containsKey("partNumber") && request.header("x-amz-copy-source") == null) {
      uploads.computeIfAbsent(uploadId, id -> new TreeMap<>())
          .put(Integer.parseInt(query.get("partNumber")), request.bodyLength());
    } else if (request.method().equals("DELETE")) {
      uploads.remove(uploadId);
    } else if (request.method().equals("POST")) {
      uploads.remove(uploadId); // completed (the parts were checked before)
    }
  }

  private static Rule regionIs(String region, String message) {
    return req -> {
      String signed = req.signedRegion();
      return signed == null || signed.equals(region) ? Optional.empty()
          : Optional.of(new Answer(REGION, 400, "Bad Request", "AuthorizationHeaderMalformed",
              message.replace("{signed}", signed), "<Region>" + region + "</Region>"));
    };
  }

  private static String awsRegionMessage(String region) {
    return "The authorization header is malformed; the region '{signed}' is wrong; expecting '" + region + "'";
  }

  private static boolean isDeleteObjects(HttpHead req) {
    return req.method().equals("POST") && req.query().containsKey("delete");
  }

  /** The first request header starting with one of {@code prefixes} (SSE-C headers are implemented by R2 and pass). */
  private static Optional<String> firstHeader(HttpHead req, List<String> prefixes) {
    return req.headers.keySet().stream()
        .filter(h -> !h.startsWith(NOT_IMPLEMENTED_PREFIX_SSE_C))
        .filter(h -> prefixes.stream().anyMatch(h::startsWith))
        .findFirst();
  }

  /** The parts of the upload {@code request} completes, in part-number order; empty for any other request. */
  private List<Long> completedParts(HttpHead request) {
    String uploadId = request.query().get("uploadId");
    if (!request.method().equals("POST") || uploadId == null) {
      return List.of();
    }
    SortedMap<Integer, Long> parts = uploads.get(uploadId);
    return parts == null ? List.of() : List.copyOf(parts.values());
  }

  private Rule partsAtLeast(long minimum) {
    return req -> {
      List<Long> parts = completedParts(req);
      for (int i = 0; i < parts.size() - 1; i++) {
        if (parts.get(i) < minimum) {
          return Optional.of(new Answer(PART_TOO_SMALL, 400, "Bad Request", "EntityTooSmall",
              "Your proposed upload is smaller than the minimum allowed object size.", ""));
        }
      }
      return Optional.empty();
    };
  }

  private Rule equalParts() {
    return req -> {
      List<Long> parts = completedParts(req);
      if (parts.size() < 2) {
        return Optional.empty();
      }
      long size = parts.get(0);
      boolean equal = parts.subList(0, parts.size() - 1).stream().allMatch(p -> p == size)
          && parts.get(parts.size() - 1) <= size;
      return equal ? Optional.empty() : Optional.of(new Answer(UNEQUAL_PARTS, 400, "Bad Request", "InvalidPart",
          "All non-trailing parts must have the same length.", ""));
    };
  }
}
