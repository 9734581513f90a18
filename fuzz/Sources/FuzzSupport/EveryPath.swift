@_spi(Fuzzing) import ImageCodecs

/// The format targets' check (FuzzWebP, FuzzGIF, FuzzHEIF): `bytes` decoded from memory, from a
/// file, streamed as `streaming` says and validated from the file must all have one outcome. A
/// decode must give the memory decode's outcome (its pixels and error when `comparesPixels`, else
/// its ``Outcome/verdict``); a validation its header or the same error kind and message. A
/// difference is a crash naming the path. Returns the memory decode's outcome, for the target's
/// own further checks.
@discardableResult
public func requireOneOutcomeOnEveryPath(
  _ bytes: [UInt8], options: DecodeOptions, streaming: Streaming, scratchName: String, comparesPixels: Bool = true
) -> Outcome {
  let file = scratchFile(bytes, name: scratchName)
  let memory = outcome { () throws(DecodeError) in try ImageDecoder.decode(bytes, options: options) }
  func same(_ path: String, _ other: Outcome) {
    let agrees = comparesPixels ? other == memory : other.verdict == memory.verdict
    precondition(agrees, "\(path): \(other) != from memory \(memory)")
  }
  same("from a file", outcome { () throws(DecodeError) in try ImageDecoder.decode(contentsOf: file, options: options) })
  same(
    "streamed in \(streaming)",
    outcome { () throws(DecodeError) in try stream(bytes, streaming, options: options, file: file) })
  let validated = validation { () throws(DecodeError) in try ImageDecoder.validate(contentsOf: file, options: options) }
  switch (memory, validated) {
  case (.image, .header), (.error, .error):
    precondition(memory.errorText == validated.errorText, "validated: \(validated) != \(memory)")
  default: preconditionFailure("validated: \(validated), from memory: \(memory)")
  }
  return memory
}

extension Streaming {
  /// The format targets' streaming, from their control byte: bits 6-7 the largest piece (1, 16,
  /// 700 bytes or half the input), bit 5 whether the last piece is appended as the last; the seed
  /// from the input's length.
  public init(control: Int, count: Int) {
    self.init(
      choice: [0, 2, 4, 6][(control >> 6) & 3], count: count,
      seed: UInt32(truncatingIfNeeded: count &* 2_654_435_761), lastPiece: control & 0x20 != 0, readsFile: false)
  }
}

extension Outcome {
  /// The error's kind and message, or nil for an accepted input.
  public var errorText: String? {
    if case .error(let text) = self { return text }
    return nil
  }

  /// The outcome without its pixels: the image's geometry and description, or the error.
  public var verdict: String {
    switch self {
    case .image(let image):
      "\(image.width)x\(image.height) \(image.pixelFormat) \(image.orientation) \(image.colorSpace)"
    case .header(let header): "header \(header.width)x\(header.height)"
    case .error(let text): text
    }
  }
}
