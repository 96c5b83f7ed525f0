package dev.featurestore;


import java.util.Optional;

/**
 * What to list: a prefix, an optional delimiter, a page size and where to continue. Immutable;
 * each {@code with} method returns a new value.
 *
 * <pre>{@code
 * ObjectPage page = store.objects().list(ListOptions.prefix("raw/").delimiter("/").pageSize(100));
 * while (page.hasMore()) {
 *   page = store.objects().list(ListOptions.prefix("raw/").delimiter("/").pageSize(100).after(page.nextToken().get()));
 * }
 * }</pre>
 *
 * @param prefix keys starting with this, relative to the store's key prefix (empty: all)
 * @param delimiter rolls keys up into common prefixes at this character sequence, usually {@code /}
 * @param pageSize keys (and common prefixes) per page, 1 to 1000 (B2 and S3 cap a page at 1,000)
 * @param continuationToken where the previous page ended
 */
public record ListOptions(String prefix, Optional<String> delimiter, int pageSize, Optional<String> continuationToken) {
  /** The largest page B2 and S3 return. */
  public static final int MAX_PAGE_SIZE = 1000;

  public ListOptions {
    InvalidArgumentException.requireNonNull(prefix, "list objects", "prefix");
    InvalidArgumentException.requireNonNull(delimiter, "list objects", "delimiter");
    InvalidArgumentException.requireNonNull(continuationToken, "list objects", "continuationToken");
    if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
      throw new InvalidArgumentException("Cannot list objects: page size must be 1 to 1000: " + pageSize);
    }
    if (delimiter.isPresent() && delimiter.get().isEmpty()) {
      throw new InvalidArgumentException("Cannot list objects: empty delimiter");
    }
  }

  /** Every key under {@code prefix}, 1,000 a page, no delimiter. */
  public static ListOptions prefix(String prefix) {
    return new ListOptions(prefix, Optional.empty(), MAX_PAGE_SIZE, Optional.empty());
  }

  public ListOptions delimiter(String delimiter) {
    return new ListOptions(prefix, Optional.of(InvalidArgumentException.requireNonNull(delimiter, "list objects", "delimiter")), pageSize, continuationToken);
  }

  public ListOptions pageSize(int pageSize) {
    return new ListOptions(prefix, delimiter, pageSize, continuationToken);
  }

  /** Continues after the page that returned {@code token}. */
  public ListOptions after(String token) {
    return new ListOptions(prefix, delimiter, pageSize, Optional.of(InvalidArgumentException.requireNonNull(token, "list objects", "token")));
  }
}
