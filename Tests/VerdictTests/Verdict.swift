import ImageCodecs
import Thumbnails

/// What a path decided about an input: accepted, or rejected with a ``DecodeError/Kind``. The
/// message is kept for the report only: paths may word the same rejection differently.
enum Verdict: Equatable, CustomStringConvertible {
  case accepted
  case rejected(DecodeError.Kind)

  init(_ error: DecodeError) { self = .rejected(error.kind) }

  var description: String {
    switch self {
    case .accepted: "accepted"
    case .rejected(let kind): "rejected (\(kind))"
    }
  }
}

/// One path's outcome: its verdict and, when it accepted and makes pixels, the pixels.
struct PathOutcome: CustomStringConvertible {
  var verdict: Verdict
  var image: Image?
  /// The error's text, or what went wrong outside the decoder (a thumbnail's own failure, a
  /// download that failed for another reason than the file).
  var detail: String

  static func accepted(_ image: Image?) -> PathOutcome { PathOutcome(verdict: .accepted, image: image, detail: "") }

  static func rejected(_ error: DecodeError) -> PathOutcome {
    PathOutcome(verdict: Verdict(error), image: nil, detail: error.message)
  }

  init(verdict: Verdict, image: Image?, detail: String) {
    self.verdict = verdict
    self.image = image
    self.detail = detail
  }

  init(_ result: Result<Image, DecodeError>) {
    switch result {
    case .success(let image): self = .accepted(image)
    case .failure(let error): self = .rejected(error)
    }
  }

  /// A thumbnail's outcome: its source's verdict is a ``ThumbnailError/decode(_:)``; any other
  /// failure is not a verdict on the file and is reported as such.
  init(_ result: Result<Image, ThumbnailError>) {
    switch result {
    case .success(let image): self = .accepted(image)
    case .failure(.decode(let error)): self = .rejected(error)
    case .failure(let other):
      self.init(verdict: .rejected(.invalidArgument), image: nil, detail: "not a decode error: \(other)")
    }
  }

  var description: String { detail.isEmpty ? "\(verdict)" : "\(verdict): \(detail)" }
}
