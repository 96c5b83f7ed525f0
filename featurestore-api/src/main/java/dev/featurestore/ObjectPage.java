package dev.featurestore;

import java.util.List;
import java.util.Optional;

/**
 * One page of a listing.
 *
 * @param objects the objects on this page, in key order
 * @param commonPrefixes with a delimiter: the "folders" rolled up at this level, relative to the
 *     store's key prefix, each ending with the delimiter
 * @param nextToken the continuation token for the next page; empty on the last page
 */
public record ObjectPage(List<ObjectSummary> objects, List<String> commonPrefixes, Optional<String> nextToken) {
  public ObjectPage {
    objects = List.copyOf(objects);
    commonPrefixes = List.copyOf(commonPrefixes);
  }

  /** True when another page follows ({@link #nextToken()} is present). */
  public boolean hasMore() {
    return nextToken.isPresent();
  }
}
