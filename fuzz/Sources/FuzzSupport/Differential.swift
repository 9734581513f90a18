import Glibc
@_spi(Fuzzing) import ImageCodecs

/// What the differential targets compare: pixels (size, format, orientation, every byte), a
/// validation's header, or an error's kind and message.
public enum Outcome: Equatable {
  case image(Image)
  case header(ImageHeader)
  case error(String)
}

/// The outcome of a decode.
public func outcome(_ decode: () throws(DecodeError) -> Image) -> Outcome {
  do throws(DecodeError) { return .image(try decode()) } catch { return .error("\(error.kind): \(error.message)") }
}

/// The outcome of a validation.
public func validation(_ validate: () throws(DecodeError) -> ImageHeader) -> Outcome {
  do throws(DecodeError) { return .header(try validate()) } catch { return .error("\(error.kind): \(error.message)") }
}

/// How a differential target streams its input: the pieces it is cut into, whether the last piece
/// goes in with `appendLast` (the decoder then knows no bytes follow: a JPEG scan may be split
/// between two threads), and whether the decoder is told the bytes are a file it may read again
/// (a thumbnail of a file streams that way: when the engine gives up, libjpeg decodes the file from
/// its first byte instead of from bytes kept in memory).
public struct Streaming: CustomStringConvertible {
  /// The largest piece: pieces are 1 to `largestPiece` bytes, drawn from `seed`.
  public var largestPiece: Int
  public var seed: UInt32
  public var lastPiece: Bool
  public var readsFile: Bool

  /// `choice` (0-7) picks the largest piece: 1, 3, 16, 100, 700, 4,096 bytes, half the input, or
  /// the whole input (one piece); but never less than a 128th of the input, so that an input is
  /// cut into a few hundred pieces at most (streaming a 5 KiB JPEG a byte at a time takes seconds
  /// under ASan, mostly libjpeg's suspending source starting its MCU over at each byte).
  public init(choice: Int, count: Int, seed: UInt32, lastPiece: Bool, readsFile: Bool) {
    let largest = [1, 3, 16, 100, 700, 4096, count / 2 + 1, count][choice & 7]
    largestPiece = max(1, largest, count / 128)
    self.seed = seed | 1
    self.lastPiece = lastPiece
    self.readsFile = readsFile
  }

  /// Where the pieces end (the last is `count`).
  public func ends(of count: Int) -> [Int] {
    var state = seed
    var ends: [Int] = []
    var at = 0
    repeat {
      state ^= state << 13
      state ^= state >> 17
      state ^= state << 5
      at = min(count, at + 1 + Int(state % UInt32(largestPiece)))
      ends.append(at)
    } while at < count
    return ends
  }

  public var description: String {
    "pieces of up to \(largestPiece) bytes (seed \(seed))\(lastPiece ? ", the last with appendLast" : "")"
      + (readsFile ? ", reading the file" : "")
  }
}

/// `bytes` streamed as `streaming` says, rows read after each piece.
public func stream(_ bytes: [UInt8], _ streaming: Streaming, options: DecodeOptions, file: String)
  throws(DecodeError) -> Image
{
  let decoder = StreamingDecoder(options: options)
  if streaming.readsFile {
    // The file by its descriptor, as the thumbnailer gives it (the decoder keeps its own duplicate).
    let descriptor = open(file, O_RDONLY | O_CLOEXEC)
    if descriptor >= 0 {
      decoder.fuzzingReadsFile(descriptor: descriptor)
      close(descriptor)
    }
  }
  var image: Image?
  var row = 0
  func take() throws(DecodeError) {
    guard let size = decoder.outputSize, let format = decoder.outputPixelFormat else { return }
    if image == nil { image = try Image(width: size.width, height: size.height, pixelFormat: format) }
    while row < image!.height {
      let copied = try decoder.readRows(into: &image!, at: row)
      if copied == 0 { break }
      row += copied
    }
  }
  var start = 0
  let ends = streaming.ends(of: bytes.count)
  for (index, end) in ends.enumerated() {
    let piece = Array(bytes[start..<end])
    if streaming.lastPiece && index == ends.count - 1 { try decoder.appendLast(piece) } else { try decoder.append(piece) }
    try take()
    start = end
  }
  try decoder.finish()
  try take()
  guard let image, row == image.height else {
    throw DecodeError(kind: .invalidArgument, format: nil, message: "finish() succeeded with rows missing")
  }
  return image
}

/// This process's scratch file, holding `bytes` (a decode or validation from a file reads it).
public func scratchFile(_ bytes: [UInt8], name: String) -> String {
  let path = "/tmp/\(name)-\(getpid())"
  let file = fopen(path, "wb")!
  _ = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
  fclose(file)
  return path
}

/// The differential targets' check. `bytes` go through every path a file takes in imgfetch where an
/// engine may decide (decoded from memory, decoded from a file, validated from a file, streamed as
/// `streaming` says), once with `ours` and once with `alone` (the same options, the library alone);
/// on each path the two must have the same outcome: the same pixels, or the same header, or the
/// same error kind and message. A difference is a crash naming the path and `library`.
public func requireSameOutcome(
  _ bytes: [UInt8], ours: DecodeOptions, alone: DecodeOptions, library: String, streaming: Streaming,
  scratchName: String
) {
  let file = scratchFile(bytes, name: scratchName)
  func same(_ path: String, _ ours: Outcome, _ alone: Outcome) {
    precondition(ours == alone, "\(path): ours \(ours) != \(library) alone \(alone)")
  }
  same(
    "from memory", outcome { () throws(DecodeError) in try ImageDecoder.decode(bytes, options: ours) },
    outcome { () throws(DecodeError) in try ImageDecoder.decode(bytes, options: alone) })
  same(
    "from a file", outcome { () throws(DecodeError) in try ImageDecoder.decode(contentsOf: file, options: ours) },
    outcome { () throws(DecodeError) in try ImageDecoder.decode(contentsOf: file, options: alone) })
  same(
    "validated", validation { () throws(DecodeError) in try ImageDecoder.validate(contentsOf: file, options: ours) },
    validation { () throws(DecodeError) in try ImageDecoder.validate(contentsOf: file, options: alone) })
  same(
    "streamed in \(streaming)",
    outcome { () throws(DecodeError) in try stream(bytes, streaming, options: ours, file: file) },
    outcome { () throws(DecodeError) in try stream(bytes, streaming, options: alone, file: file) })
}
