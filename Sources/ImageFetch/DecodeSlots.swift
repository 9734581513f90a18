import Dispatch
import FoundationEssentials

/// Bounds how many downloads are decoded at once (one slot per core by default), so a batch can
/// download ahead of its decodes without holding more decoders, and their memory, than there are
/// slots. A validator takes a slot when it starts decoding and gives it back when it finishes or
/// is dropped; waiting blocks a dispatch thread of the transfer's consumer queue, never a task.
final class DecodeSlots: Sendable {
  /// How many decodes may run at once.
  let count: Int
  private let semaphore: DispatchSemaphore

  init(count: Int) {
    self.count = max(1, count)
    semaphore = DispatchSemaphore(value: self.count)
  }

  /// One per active core.
  static func perCore() -> DecodeSlots { DecodeSlots(count: ProcessInfo.processInfo.activeProcessorCount) }

  func acquire() { semaphore.wait() }
  func release() { semaphore.signal() }
}
