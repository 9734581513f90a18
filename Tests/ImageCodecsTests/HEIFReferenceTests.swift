import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// HEIC and AVIF decoding held to libheif (issue 31): every file of pillow_heif's and av1-avif's
/// test sets (`Fixtures/formats/heic`, `Fixtures/formats/avif`) gets heif-convert's verdict and its
/// primary image's pixels (`heif.tsv`, made by `scripts/heif-references` from heif-convert's PNGs),
/// from memory, from a file, validated and streamed in random pieces; 10- and 12-bit samples
/// rounded to 8 and to 16 bits; the transformations applied once; the pixel limit from the header;
/// one-line reasons; every prefix of a file refused.
@Suite(.timeLimit(.minutes(30))) struct HEIFReferenceTests {
  struct Row: Sendable, CustomTestStringConvertible {
    let file: String
    let verdict: String
    let width: Int
    let height: Int
    let rgba8: String
    let rgba16: String
    var testDescription: String { file }
    var path: String { HEIFReferenceTests.path(file) }
    /// The sample depth the file's name says (pillow_heif's `_10__`, Link-U's `10bpc`), else 8.
    var bits: Int {
      for bits in [10, 12] where file.contains("_\(bits)__") || file.contains("\(bits)bpc") { return bits }
      return 8
    }
  }

  static let formats = Fixtures.root.appendingPathComponent("Fixtures/formats")

  /// The libheif HEIF decodes load (`IMGFETCH_LIBHEIF` may name another than Debian's 1.15.1).
  static let libheifVersion = ImageDecoder.heifLibraryVersion ?? "none"
  /// Whether it is Debian 12's, whose messages the exact expectations quote; another's own words
  /// are held to their kind and to one line.
  static let isLibheif115 = libheifVersion.hasPrefix("1.15.")
  /// The reference table of that libheif's heif-convert: `heif.tsv` for 1.15, else
  /// `heif-<version>.tsv`, made by `scripts/libheif-upstream` (a newer colour conversion differs
  /// in the last bits of some pictures).
  static let tableName = isLibheif115 ? "heif.tsv" : "heif-\(libheifVersion).tsv"

  static let table: [Row] = {
    let text = (try? String(contentsOf: formats.appendingPathComponent(tableName), encoding: .utf8)) ?? ""
    return text.split(separator: "\n").dropFirst(2).map { line in
      let field = line.split(separator: "\t").map(String.init)
      return Row(
        file: field[0], verdict: field[1], width: Int(field[2]) ?? 0, height: Int(field[3]) ?? 0, rgba8: field[4],
        rgba16: field[5])
    }
  }()

  static func path(_ file: String) -> String { formats.appendingPathComponent(file).path }
  static func bytes(_ file: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(file)))) }
  static let rgba = DecodeOptions(pixelFormat: .rgba8)

  /// Every path's outcome on one file, labelled.
  static func outcomes(_ row: Row, options: DecodeOptions = rgba) throws -> [(String, Result<Image, DecodeError>)] {
    let bytes = try Self.bytes(row.file)
    var outcomes: [(String, Result<Image, DecodeError>)] = [
      ("memory", StreamingDecoderTests.oneCall(bytes, options: options)),
      ("file", Result { () throws(DecodeError) in try ImageDecoder.decode(contentsOf: row.path, options: options) }),
    ]
    for seed: UInt64 in [1, 2] {
      let pieces = max([1, 4096][Int(seed - 1)], bytes.count / 100)
      outcomes.append(
        ("streamed (seed \(seed))", StreamingDecoderTests.stream(bytes, options: options, seed: seed, maxChunk: pieces)))
    }
    return outcomes
  }

  /// An image's pixels as RGBA with 16-bit samples (host order): gray spread to R = G = B, a
  /// missing alpha opaque, as the table's `rgba16` column.
  static func rgba16(_ image: Image) -> [UInt8] {
    let channels = image.pixelFormat.channelCount
    var out = [UInt8]()
    out.reserveCapacity(image.width * image.height * 8)
    image.bytes.withUnsafeBytes { raw in
      let samples = raw.bindMemory(to: UInt16.self)
      for pixel in 0..<(image.width * image.height) {
        let base = pixel * channels
        var values = (0..<channels).map { samples[base + $0] }
        if channels <= 2 { values = [values[0], values[0], values[0]] + values.dropFirst() }
        if values.count == 3 { values.append(65535) }
        for value in values {
          out.append(UInt8(value & 0xff))
          out.append(UInt8(value >> 8))
        }
      }
    }
    return out
  }

  @Test func theTableCoversEveryFile() throws {
    #expect(
      FileManager.default.fileExists(atPath: Self.path(Self.tableName)),
      "no Fixtures/formats/\(Self.tableName) for libheif \(Self.libheifVersion): scripts/libheif-upstream makes it")
    let listed = Set(Self.table.map(\.file))
    for folder in ["heic", "avif"] {
      let names = try FileManager.default.contentsOfDirectory(atPath: Self.formats.appendingPathComponent(folder).path)
      for name in names where [".heic", ".heif", ".hif", ".avif"].contains(where: name.hasSuffix) {
        #expect(listed.contains("\(folder)/\(name)"), "\(folder)/\(name) is not in heif.tsv")
      }
    }
    #expect(Self.table.count == 87)
    #expect(Self.table.filter { $0.verdict == "decodes" }.count == 83)
  }

  @Test(arguments: table.filter { $0.verdict != "over-limit" })
  func everyPathHasHeifConvertsVerdictAndPixels(_ row: Row) throws {
    for (label, outcome) in try Self.outcomes(row) {
      switch (row.verdict, outcome) {
      case ("decodes", .success(let image)):
        #expect(image.width == row.width && image.height == row.height, "\(label)")
        #expect(SHA256.hex(image.bytes) == row.rgba8, "\(label): other pixels than heif-convert's")
      case ("refused", .failure(let error)):
        #expect([.truncated, .corrupt].contains(error.kind), "\(label): \(error)")
        #expect(error.format == .heic && !error.message.isEmpty && !error.message.contains("\n"), "\(error)")
      default:
        Issue.record("\(row.file) \(label): \(outcome), heif-convert: \(row.verdict)")
      }
    }
    let validated = Result { () throws(DecodeError) in try ImageDecoder.validate(contentsOf: row.path) }
    #expect(((try? validated.get()) != nil) == (row.verdict == "decodes"), "validated: \(validated)")
  }

  /// 10- and 12-bit samples kept as 16-bit (`.native`) are v * 65535 / (2^bits - 1), rounded.
  @Test(arguments: table.filter { $0.verdict == "decodes" && $0.bits > 8 && $0.width * $0.height < 2_000_000 })
  func deepSamplesAreRoundedToSixteenBits(_ row: Row) throws {
    let image = try ImageDecoder.decode(contentsOf: row.path, options: DecodeOptions(pixelFormat: .native))
    #expect(image.pixelFormat.bytesPerSample == 2)
    #expect(SHA256.hex(Self.rgba16(image)) == row.rgba16)
    let header = try ImageDecoder.probe(contentsOf: row.path)
    #expect(header.bitDepth == row.bits)
  }

  @Test func theHeaderSaysFormatDepthAlphaAndImages() throws {
    let cases: [(String, ImageFormat, Int, ImageHeader.ColorType, Int)] = [
      ("heic/heif_RGBA_10__29x100.heif", .heic, 10, .rgba, 1),
      // Gray is RGB with R = G = B: libheif 1.15 cannot say before decoding that there is no chroma.
      ("heic/heif_L_12__128x128.heif", .heic, 12, .rgb, 1),
      ("heic/heif_LA_8__29x100.heif", .heic, 8, .rgba, 1),
      ("heic/heif_other_nokia_bird_burst.heic", .heic, 8, .rgb, 4),
      // Three images; the primary one has no alpha (the second has).
      ("heic/heif_other_nokia_alpha.heic", .heic, 8, .rgb, 3),
      // Its pitm names a thumbnail: the image is its one top-level image, as heif-convert's.
      ("heic/heif_other_invalid_id.heic", .heic, 8, .rgb, 1),
      ("avif/LinkU_fox.profile2.12bpc.yuv444.avif", .avif, 12, .rgb, 1),
      ("avif/Microsoft_Monochrome.avif", .avif, 8, .rgb, 1),
      ("avif/Microsoft_bbb_alpha_inverted.avif", .avif, 8, .rgba, 1),
    ]
    for (file, format, bits, colorType, images) in cases {
      let header = try ImageDecoder.probe(contentsOf: Self.path(file))
      #expect(header.format == format && header.bitDepth == bits && header.colorType == colorType, "\(file): \(header)")
      #expect(header.frameCount == images && header.hasAlpha == (colorType == .rgba || colorType == .grayAlpha))
      #expect(!header.shrinksOnLoad && header.orientation == .up)
      #expect(ImageFormat(sniffing: try Self.bytes(file).prefix(12)) == (file.hasSuffix(".avif") ? .avif : .heic))
    }
  }

  /// `irot`, `imir` and `clap` are applied by libheif once (the table's pixels are heif-convert's):
  /// every rotated or mirrored kimono is the upright 722x1024 picture, the crops 385x330, and the
  /// orientation is never applied on top.
  @Test func transformationsAreAppliedOnce() throws {
    let upright = try ImageDecoder.decode(contentsOf: Self.path("avif/LinkU_kimono.avif"), options: Self.rgba)
    for name in ["rotate90", "rotate270", "mirror-horizontal", "mirror-vertical", "mirror-vertical.rotate270"] {
      let file = "avif/LinkU_kimono.\(name).avif"
      let header = try ImageDecoder.probe(contentsOf: Self.path(file))
      #expect(header.width == 722 && header.height == 1024 && header.orientation == .up, "\(file)")
      let image = try ImageDecoder.decode(contentsOf: Self.path(file), options: Self.rgba)
      // Lossy copies of one picture: the same scene, pixel for pixel within the codec's error.
      #expect(Self.meanDifference(image, upright) < 6, "\(file): not the upright picture")
    }
    for name in ["crop", "mirror-vertical.rotate270.crop"] {
      let header = try ImageDecoder.probe(contentsOf: Self.path("avif/LinkU_kimono.\(name).avif"))
      #expect(header.width == 385 && header.height == 330)
    }
  }

  static func meanDifference(_ a: Image, _ b: Image) -> Double {
    let (x, y) = (a.bytes, b.bytes)  // (each `bytes` is a copy)
    guard a.width == b.width, a.height == b.height, x.count == y.count else { return .infinity }
    var total = 0
    for i in 0..<x.count { total += abs(Int(x[i]) - Int(y[i])) }
    return Double(total) / Double(x.count)
  }

  @Test func theTwoHundredMegapixelPhotoIsRefusedFromItsHeader() throws {
    let file = "heic/heif_special_200MP.heic"
    let message = "image is 16320x12240 (199756800 pixels), over the 100000000-pixel limit"
    let probed = Result { () throws(DecodeError) in try ImageDecoder.probe(contentsOf: Self.path(file)) }
    if case .failure(let error) = probed {
      #expect(error.kind == .limitExceeded && error.message == message, "\(error)")
    } else {
      Issue.record("accepted over the pixel limit")
    }
    let row = Self.table.first { $0.file == file }!
    for (label, outcome) in try Self.outcomes(row) {
      guard case .failure(let error) = outcome else {
        Issue.record("\(label): accepted")
        continue
      }
      #expect(error.kind == .limitExceeded && error.message == message, "\(label): \(error)")
    }
    // A smaller limit refuses a small file the same way, on the displayed and the stored size.
    let limits = DecodeLimits(maxPixels: 1000)
    #expect(throws: DecodeError.self) { try ImageDecoder.probe(contentsOf: Self.path("heic/heif_RGB_8__128x128.heif"), limits: limits) }
    #expect(throws: DecodeError.self) { try ImageDecoder.probe(contentsOf: Self.path("avif/LinkU_kimono.crop.avif"), limits: DecodeLimits(maxPixels: 200_000)) }
  }

  /// An image libheif makes inside a decode is held to the picture's longest side (or 4096): a
  /// 29x100 grid whose tile is an overlay naming a 38811x46949 canvas (FuzzHEIF's 1.8 GB
  /// allocation) is refused over the limit at once, in memory and streamed, never verified (the
  /// file and validation paths: scripts/fuzz-ci, which replays it through every path).
  @Test func imagesInsideTheDecodeAreHeldToThePicturesSide() throws {
    let file = Fixtures.root.appendingPathComponent("Fixtures/regressions/FuzzHEIF/heic-grid-tile-overlay-canvas-1.8gb")
    var bytes = try [UInt8](Data(contentsOf: file))
    bytes[0] = 0  // the HEIF the fuzz target makes of it: its first byte (the options) a box size's
    let header = try ImageDecoder.probe(bytes)
    #expect(header.format == .heic && header.width == 29 && header.height == 100)
    let message =
      "Memory allocation error: Security limit exceeded: Image size 38811x46949 exceeds the maximum image size 4097x4097 (libheif)"
    let once = StreamingDecoderTests.oneCall(bytes, options: Self.rgba)
    let streamed = StreamingDecoderTests.stream(bytes, options: Self.rgba, seed: 1, maxChunk: 512)
    for (label, outcome) in [("memory", once), ("streamed", streamed)] {
      guard case .failure(let error) = outcome else {
        Issue.record("\(label): accepted")
        continue
      }
      #expect(error.kind == .limitExceeded, "\(label): \(error)")
      #expect(
        Self.isLibheif115 ? error.message == message : error.message.hasSuffix(" (libheif)"), "\(label): \(error)")
    }
  }

  /// The limit on what libheif makes leaves room for the encoder's padding: a 4099x24 HEIC, coded
  /// 4104x64 by HEVC, decodes at its own size in memory and streamed (a 6029-wide camera photo,
  /// coded 6032 wide, was refused before, benchmarks/formats).
  @Test func aPictureWiderThan4096IsNotRefusedForItsCodedPadding() throws {
    let file = Fixtures.root.appendingPathComponent("Fixtures/formats/heic-made/wide-4099x24.heic")
    let bytes = try [UInt8](Data(contentsOf: file))
    let once = StreamingDecoderTests.oneCall(bytes, options: Self.rgba)
    let streamed = StreamingDecoderTests.stream(bytes, options: Self.rgba, seed: 1, maxChunk: 512)
    for (label, outcome) in [("memory", once), ("streamed", streamed)] {
      guard case .success(let image) = outcome else {
        Issue.record("\(label): \(outcome)")
        continue
      }
      #expect(image.width == 4099 && image.height == 24, "\(label)")
    }
  }

  /// Whether the loaded libheif is older than 1.18, which first reads item references naming several images.
  static let isBefore118: Bool = {
    let parts = libheifVersion.split(separator: ".").compactMap { Int($0) }
    return parts.count >= 2 && (parts[0], parts[1]) < (1, 18)
  }()

  /// iOS 18 cameras write item references naming several images (the gain map's `auxl` and the
  /// Exif's `cdsc` each describe the primary image and its `tmap` item). libheif before 1.18 refuses
  /// them: the verdict calls the file unsupported, not corrupt, and says how to read it, on every
  /// path; 1.18.1 and later read it. The files are a pillow_heif file and one made here, each with
  /// one reference widened by scripts/heif-shared-reference (heic-made/README).
  @Test func referencesNamingSeveralImagesAsIOS18WritesNeedLibheif118() throws {
    let cases = [
      ("heic-made/shared-exif.heic", "heic/heif_other_L_exif_xmp_iptc.heic", "Metadata not correctly assigned to image"),
      ("heic-made/shared-alpha.heic", "heic-made/two-images.heic", "Too many auxiliary image references"),
    ]
    for (file, original, words) in cases {
      let row = Row(file: file, verdict: "-", width: 0, height: 0, rgba8: "-", rgba16: "-")
      let outcomes = try Self.outcomes(row)
      if Self.isBefore118 {
        let message =
          "Invalid input: Unspecified: \(words) (libheif \(Self.libheifVersion) cannot read this layout, which iOS "
          + "18 writes; point IMGFETCH_LIBHEIF at libheif 1.18.1 or later)"
        for (label, outcome) in outcomes {
          guard case .failure(let error) = outcome else {
            Issue.record("\(file) \(label): accepted")
            continue
          }
          #expect(error.kind == .unsupported && error.message == message, "\(file) \(label): \(error)")
          #expect(error.summary == "unsupported HEIC")
        }
        continue
      }
      // The second target changes nothing in the primary picture: it is the original's, on every path.
      let plain = try ImageDecoder.decode(contentsOf: Self.path(original), options: Self.rgba)
      for (label, outcome) in outcomes {
        #expect((try? outcome.get().bytes) == plain.bytes, "\(file) \(label)")
      }
    }
  }

  @Test func errorsSayWhatIsWrongInOneLine() throws {
    let cases: [(String, DecodeError.Kind, String)] = [
      (
        "heic/heif_truncated_truncated.heic", .truncated,
        "item 2's data runs to byte 3658, past the end of the file (3657 bytes)"
      ),
      ("heic/heif_corrupted_corrupted.heic", .corrupt, "Invalid input: No 'meta' box (libheif)"),
    ]
    for (file, kind, message) in cases {
      let row = Row(file: file, verdict: "refused", width: 0, height: 0, rgba8: "-", rgba16: "-")
      for (label, outcome) in try Self.outcomes(row) {
        guard case .failure(let error) = outcome else {
          Issue.record("\(file) \(label): accepted")
          continue
        }
        // libheif's own words differ between versions; imgfetch's (the truncation) do not.
        let exact = Self.isLibheif115 || !message.hasSuffix(" (libheif)")
        #expect(error.kind == kind, "\(file) \(label): \(error)")
        #expect(exact ? error.message == message : error.message.hasSuffix(" (libheif)"), "\(file) \(label): \(error)")
        #expect(!error.message.contains("\n"))
        #expect(error.summary == (kind == .truncated ? "truncated HEIC" : "corrupt HEIC"))
      }
    }
  }

  /// Every decodable HEIC and AVIF less its last byte is refused as truncated, in imgfetch's words,
  /// on every path: the file's own boxes and `iloc` extents say it is cut short, whichever item
  /// holds that byte (libheif 1.15 checks every item's extents; later versions only those of the
  /// items a decode reads, so without this a file cut inside its Exif would decode).
  @Test func aFileOneByteShortIsTruncatedWhateverItemHoldsTheByte() throws {
    var messages: Set<String> = []
    for row in Self.table where row.verdict == "decodes" {
      let bytes = Array(try Self.bytes(row.file).dropLast())
      let once = StreamingDecoderTests.oneCall(bytes, options: Self.rgba)
      let streamed = StreamingDecoderTests.stream(bytes, options: Self.rgba, seed: 3, maxChunk: 4096)
      for (label, outcome) in [("memory", once), ("streamed", streamed)] {
        guard case .failure(let error) = outcome else {
          Issue.record("\(row.file) less its last byte: accepted (\(label))")
          continue
        }
        #expect(error.kind == .truncated, "\(row.file) \(label): \(error)")
        #expect(error.message.hasSuffix("past the end of the file (\(bytes.count) bytes)"), "\(row.file): \(error)")
        messages.insert(String(error.message.prefix { $0 != " " }))
      }
    }
    #expect(messages == ["item"], "the last byte is an item's in every file: \(messages)")

    // A top-level box that claims more than the file has: its `mdat` one byte longer than the file,
    // every item's data still there.
    var bytes = try Self.bytes("heic/heif_RGB_8__29x100.heif")
    var offset = 0
    while offset + 8 <= bytes.count, String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self) != "mdat" {
      offset += bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
    }
    let size = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
    #expect(offset + size == bytes.count, "mdat is last")
    bytes.replaceSubrange(offset..<(offset + 4), with: withUnsafeBytes(of: UInt32(size + 1).bigEndian, Array.init))
    guard case .failure(let error) = StreamingDecoderTests.oneCall(bytes, options: Self.rgba) else {
      Issue.record("an mdat longer than the file: accepted")
      return
    }
    #expect(error.kind == .truncated)
    #expect(error.message == "the 'mdat' box runs to byte \(bytes.count + 1), past the end of the file (\(bytes.count) bytes)")
  }

  /// Every prefix of a small HEIC and a small AVIF is refused, on every path, never accepted.
  @Test func everyPrefixIsRefused() throws {
    for file in ["heic/heif_RGB_8__29x100.heif", "avif/LinkU_kimono.crop.avif"] {
      let bytes = try Self.bytes(file)
      let step = max(1, bytes.count / 150)
      for length in stride(from: 0, to: bytes.count, by: step) {
        let prefix = Array(bytes[..<length])
        let once = StreamingDecoderTests.oneCall(prefix, options: Self.rgba)
        let streamed = StreamingDecoderTests.stream(prefix, options: Self.rgba, seed: UInt64(length), maxChunk: 512)
        for (label, outcome) in [("memory", once), ("streamed", streamed)] {
          if case .success = outcome { Issue.record("\(file): the first \(length) bytes accepted (\(label))") }
        }
        if case .failure(let a) = once, case .failure(let b) = streamed {
          #expect(a.kind == b.kind && a.message == b.message, "\(file) \(length): \(a) / \(b)")
        }
      }
    }
  }
}
