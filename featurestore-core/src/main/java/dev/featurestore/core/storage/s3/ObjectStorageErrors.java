package dev.featurestore.core.storage.s3;

import dev.featurestore.StorageException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Converts AWS SDK failures into {@link StorageException}s that name the fix. Messages never hold
 * credentials, and hold no text of the server's error (a server may echo request details).
 */
public final class ObjectStorageErrors {
  private ObjectStorageErrors() {}

  /**
   * A {@link StorageException} for the first SDK failure in {@code e}'s cause chain, if there is
   * one; {@code what} is the operation ("create table a.b").
   */
  public static Optional<StorageException> translate(Throwable e, String what) {
    return translate(e, what, null);
  }

  static Optional<StorageException> translate(Throwable e, String what, S3Settings settings) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SdkException sdk) {
        return Optional.of(new StorageException("Cannot " + what + ": " + describe(sdk, settings), e));
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return Optional.empty();
  }

  /**
   * Whether the store refused a request because it was signed for another region than the bucket's
   * (R2 answers 400 InvalidRegionName to any region but {@code auto} and its aliases).
   */
  public static boolean isWrongRegion(S3Exception e) {
    String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
    return e.statusCode() == 301 || "PermanentRedirect".equals(code) || "AuthorizationHeaderMalformed".equals(code)
        || "IllegalLocationConstraintException".equals(code) || "IncorrectEndpoint".equals(code)
        || "InvalidRegionName".equals(code);
  }

  /**
   * The bucket's region as the store names it in a wrong-region answer: the
   * {@code x-amz-bucket-region} header (S3), else the region in "expecting '<region>'" of the
   * error message (S3, B2, MinIO), {@code auto} when R2 lists it among the regions it accepts. Only a
   * region-shaped token is taken from the server's text.
   */
  public static Optional<String> expectedRegion(S3Exception e) {
    if (e.awsErrorDetails() == null) {
      return Optional.empty();
    }
    if (e.awsErrorDetails().sdkHttpResponse() != null) {
      Optional<String> header = e.awsErrorDetails().sdkHttpResponse().firstMatchingHeader("x-amz-bucket-region")
          .filter(r -> REGION_TOKEN.matcher(r).matches());
      if (header.isPresent()) {
        return header;
      }
    }
    String message = e.awsErrorDetails().errorMessage();
    if (message == null) {
      return Optional.empty();
    }
    java.util.regex.Matcher m = EXPECTING_REGION.matcher(message);
    if (m.find()) {
      return Optional.of(m.group(1));
    }
    return "InvalidRegionName".equals(e.awsErrorDetails().errorCode()) && R2_AUTO.matcher(message).find()
        ? Optional.of("auto") : Optional.empty();
  }

  private static final java.util.regex.Pattern REGION_TOKEN = java.util.regex.Pattern.compile("[a-z0-9][a-z0-9-]{0,40}");
  private static final java.util.regex.Pattern R2_AUTO = java.util.regex.Pattern.compile("Must be one of: .*\\bauto\\b");
  private static final java.util.regex.Pattern EXPECTING_REGION =
      java.util.regex.Pattern.compile("expecting '([a-z0-9][a-z0-9-]{0,40})'");

  /** " after N attempts" (the SDK's count, else the configured bound), or " after retries". */
  private static String attempts(SdkException e, S3Settings s) {
    Integer n = e.numAttempts();
    if (n == null && s != null) {
      n = s.maxAttempts;
    }
    return n == null ? " after retries" : n == 1 ? " after 1 attempt (no retries)" : " after " + n + " attempts";
  }

  private static String describe(SdkException e, S3Settings s) {
    String where = s == null ? "" : ": " + s.where();
    if (e instanceof S3Exception s3) {
      int status = s3.statusCode();
      String code = s3.awsErrorDetails() == null ? null : s3.awsErrorDetails().errorCode();
      String http = "HTTP " + status + (code == null || code.isEmpty() ? "" : " " + code);
      if (status == 403 || "InvalidAccessKeyId".equals(code) || "SignatureDoesNotMatch".equals(code)) {
        return "credentials rejected (" + http + "), check the access key id and secret key"
            + " (B2: B2_APPLICATION_KEY_ID and B2_APPLICATION_KEY) and that the key may use the bucket" + where;
      }
      if ("NoSuchBucket".equals(code) || (status == 404 && code == null && s != null)) {
        return "bucket does not exist (" + http + "), create it or fix the bucket name"
            + (s == null ? "" : ": " + s.bucket);
      }
      if (isWrongRegion(s3)) {
        return "wrong region for the bucket (" + http + "), set the region (B2: B2_REGION)"
            + expectedRegion(s3).map(r -> " to " + r).orElse("") + " and use the endpoint that matches it" + where;
      }
      if ("InvalidArgument".equals(code) && status == 400) {
        return "the store refused a request header (" + http + "), use the provider profile that matches"
            + " the store (B2 needs StorageProvider.B2)" + where;
      }
      if (status == 501) {
        return "the store does not implement a request (" + http + "), use the provider profile that matches"
            + " the store" + where;
      }
      if (status >= 500) {
        return "storage unavailable after retries (" + http + "), retry later" + where;
      }
      return "storage refused the request (" + http + ")" + where;
    }
    if (e instanceof SdkClientException) {
      Throwable root = e;
      for (Throwable t = e; t != null; t = t.getCause()) {
        root = t;
        if (t instanceof ConnectException || t instanceof UnknownHostException || t instanceof NoRouteToHostException
            || t instanceof SocketTimeoutException) {
          break;
        }
      }
      String endpoint = s == null ? "" : ": " + (s.endpoint == null ? "the AWS endpoint for " + s.region : s.endpoint);
      if (root instanceof UnknownHostException) {
        return "endpoint host not found, check the endpoint" + endpoint;
      }
      if (root instanceof ConnectException || root instanceof NoRouteToHostException) {
        return "endpoint unreachable, check the endpoint and the network" + endpoint;
      }
      String attempts = attempts(e, s);
      if (root instanceof SocketTimeoutException) {
        return "endpoint timed out" + attempts + ", check the endpoint and the network" + endpoint;
      }
      if (root instanceof java.io.IOException) {
        // a connection reset or closed mid-request: transient, the SDK already retried it
        return "connection failed" + attempts + " (" + root.getClass().getSimpleName()
            + (root.getMessage() == null || !root.getClass().getName().startsWith("java.") ? "" : ": " + root.getMessage())
            + "), a transient network or server failure: retry later" + endpoint;
      }
      return "storage client failed" + attempts + " (" + root.getClass().getSimpleName() + ")" + endpoint;
    }
    return "storage failed (" + e.getClass().getSimpleName() + ")" + where;
  }
}
