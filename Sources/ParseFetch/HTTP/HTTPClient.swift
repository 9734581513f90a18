/// The package's one HTTP client, seen from outside ParseFetch: ParseFetch's REST client and
/// downloader send every request through ``HTTPExchange`` (libcurl, driven by ``TransferLoop``); the
/// command line may only ask it to get ready.
package enum HTTPClient {
  /// Loads libcurl now, on a thread of its own, so that a process about to make its first request
  /// does not wait for its libraries then (the command line's fetch calls this first thing).
  package static func warmUp() { TransferLoop.warmUp() }

  /// Waits until a ``warmUp()`` has finished: call it before the process exits.
  package static func finishWarmUp() { TransferLoop.waitForWarmUp() }
}
