import FoundationEssentials
import ImageCodecs

/// libFuzzer entry point: the incremental decoder against the one-call decode. Byte 0 picks the
/// options (pixel format, strictness, JPEG scale), bytes 1-2 seed the chunk sizes; the rest is the
/// file (PNG or JPEG by its own signature). It is decoded once by `ImageDecoder.decode` and once by a
/// `StreamingDecoder` fed in random-size chunks (1 byte to 4 KiB) with rows read as they become
/// ready: both must give the same verdict (accepted, or rejected with the same error kind) and, when
/// accepted, the same size, format and pixels. Below full size the verdict must also be the full-size
/// one-call decode's (a DCT-scaled decode reads every coefficient).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStreaming(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  guard size > 3 else { return 0 }
  let input = UnsafeBufferPointer(start: data, count: size)
  let limits = DecodeLimits(maxPixels: 1 << 16, maxJPEGScans: 64)
  let variants = [
    DecodeOptions(pixelFormat: .rgba8, limits: limits),
    DecodeOptions(pixelFormat: .native, limits: limits, strictness: .lenient),
    DecodeOptions(limits: limits, jpegScale: .eighth),
    DecodeOptions(pixelFormat: .gray8, limits: limits, jpegScale: .half),
    DecodeOptions(limits: limits, jpegScale: JPEGScale(eighths: 11)),
  ]
  let options = variants[Int(input[0]) % variants.count]
  var state = UInt32(input[1]) << 8 | UInt32(input[2]) | 0x1_0000
  let bytes = Array(input[3...])

  let whole: Result<Image, DecodeError>
  do throws(DecodeError) { whole = .success(try ImageDecoder.decode(bytes, options: options)) } catch {
    whole = .failure(error)
  }

  let decoder = StreamingDecoder(options: options)
  var image: Image?
  var rowsRead = 0
  func drain() throws(DecodeError) {
    if image == nil, let size = decoder.outputSize, let format = decoder.outputPixelFormat {
      image = try Image(width: size.width, height: size.height, pixelFormat: format)
    }
    guard var target = image else { return }
    image = nil  // keep the buffer uniquely referenced while rows are copied in
    defer { image = target }
    while rowsRead < target.height {
      let copied = try decoder.readRows(into: &target, at: rowsRead)
      if copied == 0 { break }
      rowsRead += copied
    }
  }
  let streamed: Result<Image, DecodeError>
  do throws(DecodeError) {
    var offset = 0
    while offset < bytes.count {
      state ^= state << 13
      state ^= state >> 17
      state ^= state << 5
      let end = min(bytes.count, offset + 1 + Int(state % 4096))
      try decoder.append(bytes[offset..<end])
      offset = end
      try drain()
    }
    try decoder.finish()
    try drain()
    guard let done = image, rowsRead == done.height else {
      preconditionFailure("finish() succeeded but only \(rowsRead) rows were handed out")
    }
    streamed = .success(done)
  } catch {
    streamed = .failure(error)
  }

  // A DCT-scaled decode (below full size) reads every coefficient, so its verdict is the full-size
  // one-call decode's: accepted by both, or rejected by both with the same kind.
  if options.jpegScale.eighths < 8 {
    var fullOptions = options
    fullOptions.jpegScale = .full
    let full: DecodeError.Kind?
    do throws(DecodeError) {
      _ = try ImageDecoder.decode(bytes, options: fullOptions)
      full = nil
    } catch {
      full = error.kind
    }
    let scaled: DecodeError.Kind?
    if case .failure(let error) = streamed { scaled = error.kind } else { scaled = nil }
    precondition(
      full == scaled,
      "scale \(options.jpegScale.eighths)/8 streamed: \(scaled.map { "\($0)" } ?? "accepted"), "
        + "full size one call: \(full.map { "\($0)" } ?? "accepted")")
  }

  switch (whole, streamed) {
  case (.success(let a), .success(let b)):
    precondition(a.width == b.width && a.height == b.height && a.pixelFormat == b.pixelFormat, "geometry differs")
    precondition(a.bytes == b.bytes, "pixels differ")
  case (.failure(let a), .failure(let b)):
    precondition(a.kind == b.kind, "error kinds differ: one call \(a.kind), streamed \(b.kind)")
  case (.success, .failure(let error)):
    preconditionFailure("one call accepted, streamed rejected: \(error)")
  case (.failure(let error), .success):
    preconditionFailure("one call rejected (\(error)), streamed accepted")
  }
  return 0
}
