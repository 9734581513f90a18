import FoundationEssentials
import SystemFiles

/// Validates a download while it arrives, and hands back what later stages need (such as the
/// decoded image). One is made for each attempt; see ``DownloadConsumer`` for how it is called.
public protocol DownloadValidator<Value>: DownloadConsumer {
  /// What a successful validation produces.
  associatedtype Value: Sendable
  /// The validation's result, set by a ``DownloadConsumer/finish(file:)`` that did not throw.
  var value: Value? { get }
}

/// A validator that looks at the file only once it is complete (`validate` reads it from disk).
final class FileValidator<Value: Sendable>: DownloadValidator {
  private let validate: @Sendable (String) throws -> Value
  private(set) var value: Value?

  init(_ validate: @escaping @Sendable (String) throws -> Value) { self.validate = validate }

  func consume(_ bytes: UnsafeRawBufferPointer) throws {}

  func finish(file: String) throws { value = try validate(file) }
}

/// The validators one fetch made, so the fetch can tell a rejection from a failed transfer and
/// pick up the last attempt's value.
final class ValidatorLog<Value: Sendable>: Sendable {
  private let make: @Sendable () -> any DownloadValidator<Value>
  private let last = Locked<UncheckedBox<any DownloadValidator<Value>>?>(nil)

  init(_ make: @escaping @Sendable () -> any DownloadValidator<Value>) { self.make = make }

  /// The factory handed to the downloader.
  var factory: DownloadConsumerFactory {
    { [self] in
      let validator = make()
      last.withLock { $0 = UncheckedBox(validator) }
      return validator
    }
  }

  /// The last attempt's value, once its validator finished.
  var value: Value? { last.withLock { $0?.value.value } }
}

/// Carries a non-Sendable reference that is only used by one thread at a time.
struct UncheckedBox<T>: @unchecked Sendable {
  var value: T
  init(_ value: T) { self.value = value }
}
