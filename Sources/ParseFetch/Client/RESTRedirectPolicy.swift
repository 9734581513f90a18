import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Lets a REST request follow a redirect only within the Parse server's own origin.
///
/// REST requests carry the application id, the REST or master key and the session token, so a
/// redirect that leaves the origin (another host, port or scheme, even http to https) is not
/// followed: the 3xx answer comes back to ``ParseClient``, which reports it as
/// ``ParseError/redirectedElsewhere(server:location:)``. A redirect within the origin is
/// followed with the credentials set again.
final class RESTRedirectPolicy: NSObject, URLSessionTaskDelegate, Sendable {
  let credentials: ScopedHeaders

  init(credentials: ScopedHeaders) { self.credentials = credentials }

  func urlSession(
    _ session: URLSession, task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
    completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    guard credentials.origin != nil, Origin(request.url) == credentials.origin else {
      return completionHandler(nil)
    }
    completionHandler(credentials.applied(to: request))
  }
}
