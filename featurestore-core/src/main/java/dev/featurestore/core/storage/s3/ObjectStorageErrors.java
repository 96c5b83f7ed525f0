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
      if (status == 301 || "PermanentRedirect".equals(code) || "AuthorizationHeaderMalformed".equals(code)
          || "IllegalLocationConstraintException".equals(code) || "IncorrectEndpoint".equals(code)) {
        String actual = s3.awsErrorDetails() == null || s3.awsErrorDetails().sdkHttpResponse() == null ? null
            : s3.awsErrorDetails().sdkHttpResponse().firstMatchingHeader("x-amz-bucket-region").orElse(null);
        return "wrong region for the bucket (" + http + "), set the region"
            + (actual == null ? "" : " to " + actual) + " and the endpoint that matches it" + where;
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
      if (root instanceof SocketTimeoutException) {
        return "endpoint timed out after retries, check the endpoint and the network" + endpoint;
      }
      return "storage client failed (" + root.getClass().getSimpleName() + ")" + endpoint;
    }
    return "storage failed (" + e.getClass().getSimpleName() + ")" + where;
  }
}
