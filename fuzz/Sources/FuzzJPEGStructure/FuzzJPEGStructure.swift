import FuzzSupport
@_spi(Fuzzing) import ImageCodecs
import Glibc
import Thumbnails

/// libFuzzer entry point, structure-aware and differential: the input is not a file but the choices
/// of a JPEG encoder (`GeneratedJPEG`: baseline, extended or progressive; grey or three components
/// sampled 1-4 each; 1-300 px a side; scan scripts with bands sent again, successive approximation
/// up to Al=13, refinements and components in every legal order; restart intervals; DHT and DQT
/// between scans), so that every file is legal before `Mutation` damages some of them a little
/// (or an input that starts with `FF D8` is a file as it is: the target's regression inputs).
/// Each file then goes, with imgfetch's JPEG engine and with libjpeg alone (`libjpegOnly`), through
/// every path (`requireSameOutcome`: from memory, from a file, validated, streamed in pieces) at
/// 1/8, at 1/4 and (three inputs in four) one more scale the input picks, and through the thumbnail
/// path (`ThumbnailStream` fed by a `StreamingDecoder`); a different verdict, message or pixel is a
/// crash. No scan is split between two threads (FuzzJPEGEngine's job), so runs are repeatable.
///
/// Bytes 0-3 seed the coefficient values; the rest are read as the generator asks (then a
/// generator seeded by the whole input continues), in this order: the frame, the values' style,
/// the scan script, the tables and intervals, the mutations, then the checks' options (pixel
/// format, extra scale, pieces, thumbnail size).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEGStructure(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let input = Array(UnsafeBufferPointer(start: data, count: size))
  var draw = Draw(input)
  var bytes: [UInt8]
  var formats: [PixelFormatRequest] = [.source, .rgba8, .gray8, .rgb8]
  if input.starts(with: [0xFF, 0xD8]) {
    // A file as it is (a kept finding: Fixtures/regressions/FuzzJPEGStructure), in every format.
    bytes = input
  } else {
    let generated = GeneratedJPEG(&draw)
    bytes = generated.bytes
    Mutation.apply(&bytes, &draw)
    if let directory = getenv("FUZZ_JPEG_STRUCTURE_DUMP") {
      dump(generated, bytes, into: String(cString: directory))
      return 0
    }
    formats = [formats[draw.below(4)]]
  }
  for format in formats { check(bytes, format, &draw) }
  return 0
}

/// `bytes` through every path at 1/8, 1/4 and a scale `draw` picks, then as a thumbnail.
func check(_ bytes: [UInt8], _ format: PixelFormatRequest, _ draw: inout Draw) {
  var scales: [JPEGScale] = [.eighth, .quarter]
  let extra = 1 + draw.below(8)
  if extra > 2 { scales.append(JPEGScale(eighths: extra)) }
  let limits = DecodeLimits(maxPixels: 1 << 22, maxJPEGScans: 128)
  let piece = draw.below(8)
  let lastPiece = draw.chance(50)
  let readsFile = draw.chance(50)
  for scale in scales {
    var options = DecodeOptions(pixelFormat: format, limits: limits, jpegScale: scale)
    options.alwaysUsesJPEGEngine = true  // also the 4:2:0 baseline decodes it leaves to libjpeg when busy
    var alone = options
    alone.libjpegOnly = true
    let streaming = Streaming(
      choice: piece, count: bytes.count, seed: UInt32(truncatingIfNeeded: bytes.count &* 2_654_435_761 &+ scale.eighths),
      lastPiece: lastPiece, readsFile: readsFile)
    requireSameOutcome(
      bytes, ours: options, alone: alone, library: "libjpeg", streaming: streaming,
      scratchName: "fuzz-jpeg-structure")
  }
  let sizes: [ThumbnailSize] = [.longestSide(8), .longestSide(24), .longestSide(64), .box(width: 17, height: 5)]
  let thumbnail = ThumbnailOptions(size: sizes[draw.below(sizes.count)], limits: limits)
  let file = scratchFile(bytes, name: "fuzz-jpeg-structure")
  let ours = thumbnailOutcome(bytes, thumbnail, libjpegOnly: false, readsFile: readsFile ? file : nil)
  let alone = thumbnailOutcome(bytes, thumbnail, libjpegOnly: true, readsFile: readsFile ? file : nil)
  precondition(ours == alone, "thumbnail \(thumbnail.size): ours \(ours) != libjpeg alone \(alone)")
}

/// A thumbnail as `Thumbnailer` streams one (its decoder at the plan's shrink-on-load scale), the
/// bytes in 4 KiB pieces, the last with `appendLast`; the decoder with or without the engine.
func thumbnailOutcome(_ bytes: [UInt8], _ options: ThumbnailOptions, libjpegOnly: Bool, readsFile: String?) -> Outcome {
  do throws(ThumbnailError) {
    let stream = try ThumbnailStream(options: options)
    var decodeOptions = stream.decodeOptions
    decodeOptions.libjpegOnly = libjpegOnly
    decodeOptions.alwaysUsesJPEGEngine = true
    let decoder = StreamingDecoder(options: decodeOptions, scaleForHeader: stream.scale(for:))
    // The file by its descriptor, as the thumbnailer gives it (the decoder keeps its own duplicate).
    if let readsFile {
      let descriptor = open(readsFile, O_RDONLY | O_CLOEXEC)
      if descriptor >= 0 {
        decoder.fuzzingReadsFile(descriptor: descriptor)
        close(descriptor)
      }
    }
    var at = 0
    while at < bytes.count {
      let end = min(bytes.count, at + 4096)
      do throws(DecodeError) {
        if end == bytes.count { try decoder.appendLast(Array(bytes[at..<end])) } else { try decoder.append(Array(bytes[at..<end])) }
      } catch { throw .decode(error) }
      try stream.consumeRows(from: decoder)
      at = end
    }
    do throws(DecodeError) { try decoder.finish() } catch { throw .decode(error) }
    return .image(try stream.finish(from: decoder))
  } catch {
    return .error("\(error)")
  }
}

/// `FUZZ_JPEG_STRUCTURE_DUMP=DIR`: instead of the checks, each input's file is written to
/// DIR/<pid>-<n>.jpg (and -mutated.jpg), with a line on stderr: the frame, the scans, and libjpeg's
/// verdict at full size on the unmutated file, so that a finding can be kept as the file it is and
/// the generator's legality checked (every unmutated file must decode).
func dump(_ generated: GeneratedJPEG, _ bytes: [UInt8], into directory: String) {
  let frame = generated.frame
  let name = "\(directory)/\(getpid())-\(dumpCount)"
  dumpCount += 1
  for (suffix, content) in [("", generated.bytes), ("-mutated", bytes)] where suffix.isEmpty || content != generated.bytes {
    let file = fopen(name + suffix + ".jpg", "wb")!
    _ = content.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
    fclose(file)
  }
  var alone = DecodeOptions(limits: DecodeLimits(maxPixels: 1 << 22, maxJPEGScans: 128))
  alone.libjpegOnly = true
  let verdict = outcome { () throws(DecodeError) in try ImageDecoder.decode(generated.bytes, options: alone) }
  let sampling = frame.components.map { "\($0.h)x\($0.v)" }.joined(separator: ",")
  let script = generated.scans.map { scan in
    "\(scan.components.map(String.init).joined())[\(scan.ss)-\(scan.se) \(scan.ah)/\(scan.al)\(scan.restartInterval > 0 ? " r\(scan.restartInterval)" : "")]"
  }.joined(separator: " ")
  var verdictText = "ok"
  if case .error(let message) = verdict { verdictText = message }
  let line =
    "\(name).jpg \(frame.width)x\(frame.height) \(frame.progressive ? "progressive" : "sequential") \(sampling)"
      + " \(generated.bytes.count) bytes\(bytes != generated.bytes ? " (mutated: \(bytes.count))" : ""): libjpeg \(verdictText); \(script)\n"
  _ = line.withCString { write(2, $0, strlen($0)) }
}

nonisolated(unsafe) var dumpCount = 0
