extension DecodeError {
  /// The error for pixel memory that could not be allocated: every `Image` allocation reports it
  /// (``Image/init(width:height:pixelFormat:orientation:)``, ``Image/oriented()``, the copy in
  /// ``Image/withUnsafeMutableBytes(_:)``, the decoders), none traps.
  static func cannotAllocate(_ byteCount: Int, for what: String) -> DecodeError {
    DecodeError(kind: .outOfMemory, format: nil, message: "cannot allocate \(byteCount) bytes for \(what)")
  }
}
