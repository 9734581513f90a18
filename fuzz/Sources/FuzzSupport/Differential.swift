import ImageCodecs

/// What the differential targets compare: pixels, or an error's kind and message.
public enum Outcome: Equatable {
  case image(Image)
  case error(String)
}

/// The outcome of a decode.
public func outcome(_ decode: () throws(DecodeError) -> Image) -> Outcome {
  do throws(DecodeError) { return .image(try decode()) } catch { return .error("\(error.kind): \(error.message)") }
}

/// A stream of `bytes` in two pieces, rows read after each. `lastPiece`: the second piece is
/// appended as the last (`appendLast`), so the decoder knows no bytes follow.
public func stream(_ bytes: [UInt8], cut: Int, options: DecodeOptions, lastPiece: Bool) throws(DecodeError) -> Image {
  let decoder = StreamingDecoder(options: options)
  var image: Image?
  var row = 0
  func take() throws(DecodeError) {
    guard let size = decoder.outputSize, let format = decoder.outputPixelFormat else { return }
    if image == nil { image = try Image(width: size.width, height: size.height, pixelFormat: format) }
    row += try decoder.readRows(into: &image!, at: row)
  }
  try decoder.append(Array(bytes[..<cut]))
  try take()
  if lastPiece { try decoder.appendLast(Array(bytes[cut...])) } else { try decoder.append(Array(bytes[cut...])) }
  try take()
  try decoder.finish()
  try take()
  guard let image, row == image.height else {
    throw DecodeError(kind: .invalidArgument, format: nil, message: "rows missing")
  }
  return image
}

/// The differential targets' check: `bytes` decoded with `ours` and with `alone` (the same options,
/// the library alone) from memory, then as a stream cut at `cut`, must have the same outcome each
/// way; a difference is a crash naming `library`.
public func requireSameOutcome(
  _ bytes: [UInt8], ours: DecodeOptions, alone: DecodeOptions, library: String, cut: Int, lastPiece: Bool
) {
  let expected = outcome { () throws(DecodeError) in try ImageDecoder.decode(bytes, options: alone) }
  let fromMemory = outcome { () throws(DecodeError) in try ImageDecoder.decode(bytes, options: ours) }
  precondition(fromMemory == expected, "from memory: \(fromMemory) != \(library) alone: \(expected)")
  let streamed = outcome { () throws(DecodeError) in try stream(bytes, cut: cut, options: ours, lastPiece: lastPiece) }
  let streamedAlone = outcome { () throws(DecodeError) in
    try stream(bytes, cut: cut, options: alone, lastPiece: lastPiece)
  }
  precondition(streamed == streamedAlone, "streamed: \(streamed) != \(library) alone: \(streamedAlone)")
}
