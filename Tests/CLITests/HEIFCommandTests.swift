import FixtureSupport
import Foundation
import ImageCodecs
import ParseFixtureSupport
import Testing

/// HEIC and AVIF files on the command line (issue 31), run as a user runs them: `info`, `verify`,
/// `decode`, the plain command and `--thumbnail` on a phone's HEIC, rotated and gridded AVIFs, a
/// P3 one and the damaged ones; a folder of them; a Parse class holding them; and a process that
/// reads no HEIF never loading libheif.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct HEIFCommandTests {
  static func formats(_ name: String) -> String {
    Fixtures.root.appendingPathComponent("Fixtures/formats/\(name)").path
  }

  static func object(_ line: Substring) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
  }

  static func withCopies<T>(_ paths: [String], _ body: (String, [String]) throws -> T) throws -> T {
    let url = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: url) }
    let copies = try paths.map { path in
      let copy = url.path + "/" + URL(fileURLWithPath: path).lastPathComponent
      try FileManager.default.copyItem(atPath: path, toPath: copy)
      return copy
    }
    return try body(url.path, copies)
  }

  @Test func infoDescribesHEICsAndAVIFs() throws {
    let files = [
      Self.formats("heic/heif_special_xiaomi.heic"), Self.formats("avif/LinkU_fox.profile2.12bpc.yuv444.avif"),
      Self.formats("heic/heif_other_nokia_bird_burst.heic"), ViewedImage.colorFixture("display-p3-nclx.avif"),
      ViewedImage.colorFixture("display-p3.heic"),
    ]
    let run = try runImgfetch(["info"] + files)
    #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderrText)")
    let objects = try run.stdoutText.split(separator: "\n").map(Self.object)
    #expect(objects.count == 5)
    #expect(objects[0]["format"] as? String == "heic" && objects[0]["width"] as? Int == 2592)
    #expect(objects[0]["bitDepth"] as? Int == 8 && objects[0]["frames"] as? Int == 1)
    #expect(objects[1]["format"] as? String == "avif" && objects[1]["bitDepth"] as? Int == 12)
    #expect(objects[2]["frames"] as? Int == 4)
    #expect(objects[3]["colorSource"] as? String == "nclx" && objects[3]["nclx"] as? String == "12/13/6 full")
    #expect(objects[3]["sRGB"] as? Bool == false)
    #expect(objects[4]["colorSource"] as? String == "iccProfile")
    #expect(objects[4]["colorProfile"] as? String == "Display P3 (imgfetch test)")
  }

  @Test func verifyAcceptsWholeFilesAndRefusesDamagedOnesInOneLine() throws {
    let good = [Self.formats("heic/heif_RGBA_10__29x100.heif"), Self.formats("avif/Microsoft_Monochrome.avif")]
    let ok = try runImgfetch(["verify"] + good)
    #expect(ok.status == 0 && ok.stderr.isEmpty)
    #expect(ok.stdoutText == good.map { "\($0): OK\n" }.joined())
    let cases = [
      (
        "heic/heif_truncated_truncated.heic",
        "truncated HEIC: item 2's data runs to byte 3658, past the end of the file (3657 bytes)"
      ),
      ("heic/heif_corrupted_corrupted.heic", "corrupt HEIC: Invalid input: No 'meta' box (libheif)"),
      (
        "heic/heif_special_200MP.heic",
        "HEIC over a decode limit: image is 16320x12240 (199756800 pixels), over the 100000000-pixel limit"
      ),
    ]
    for (name, reason) in cases {
      let run = try runImgfetch(["verify", Self.formats(name)])
      #expect(run.status == 4, "\(name)")
      #expect(run.stdout.isEmpty)
      // libheif's own words are 1.15's here; another libheif (IMGFETCH_LIBHEIF) words them its way,
      // under the same kind.
      let libheifWords = reason.hasSuffix(" (libheif)") && ImageDecoder.heifLibraryVersion?.hasPrefix("1.15.") != true
      let kind = String(reason.prefix { $0 != ":" })
      if libheifWords {
        #expect(run.stderrText.hasPrefix("imgfetch: \(Self.formats(name)): \(kind): "), "\(run.stderrText)")
        #expect(run.stderrText.hasSuffix(" (libheif)\n") && run.stderrText.split(separator: "\n").count == 1)
      } else {
        #expect(run.stderrText == "imgfetch: \(Self.formats(name)): \(reason)\n")
      }
      let plain = try runImgfetch([Self.formats(name)])
      #expect(plain.status == 4 && plain.stderrText.contains(libheifWords ? kind : reason), "\(name): \(plain.stderrText)")
    }
  }

  /// Damage inside the coded image that HEVC and AV1 cannot detect (no checksum) decodes, with one
  /// verdict, and nothing but imgfetch's own lines reaches the terminal: no decoder noise.
  @Test func damagedBitstreamsPrintNoLibraryNoise() throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    var paths: [String] = []
    for (index, name) in ["heic/heif_special_xiaomi.heic", "avif/Microsoft_kids_720p.avif"].enumerated() {
      var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.formats(name))))
      var state = UInt64(index + 7)  // a fixed linear congruential sequence: the same damage every run
      for _ in 0..<60 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        bytes[bytes.count / 2 + Int((state >> 33) % UInt64(bytes.count / 2))] ^= 0xA5
      }
      let path = scratch.path + "/damaged-\(index)" + (name.hasSuffix(".avif") ? ".avif" : ".heic")
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      paths.append(path)
    }
    let run = try runImgfetch(["verify"] + paths)
    let lines = run.stderrText.split(separator: "\n")
    #expect(lines.allSatisfy { $0.hasPrefix("imgfetch: ") }, "\(run.stderrText)")
    #expect(run.status == 0 || run.status == 4)
    let again = try runImgfetch(["verify"] + paths)
    #expect(again.status == run.status && again.stdout == run.stdout)
  }

  @Test func decodeWritesHeifConvertsPixels() throws {
    let file = Self.formats("avif/LinkU_kimono.rotate90.avif")
    let run = try runImgfetch(["decode", file, "--pixel-format", "rgba8"])
    #expect(run.status == 0 && run.stderr.isEmpty)
    let table = try String(contentsOfFile: Self.formats("heif.tsv"), encoding: .utf8)
    let row = try #require(table.split(separator: "\n").first { $0.hasPrefix("avif/LinkU_kimono.rotate90.avif\t") })
    #expect(SHA256.hex(run.stdout) == String(row.split(separator: "\t")[4]))
  }

  @Test func thumbnailsAreUprightAndAFolderOfThemIsWalked() throws {
    let sources = [
      Self.formats("heic/heif_special_xiaomi.heic"), Self.formats("avif/LinkU_kimono.rotate90.avif"),
      Self.formats("avif/Microsoft_Summer_in_Tomsk_720p_5x4_grid.avif"),
      Self.formats("heic/heif_other_nokia_alpha.heic"),
    ]
    try Self.withCopies(sources) { directory, copies in
      let run = try runImgfetch(["--thumbnail", "64", "--json", directory])
      #expect(run.status == 0 && run.stderrText.isEmpty, "\(run.stderrText)")
      let objects = try run.stdoutText.split(separator: "\n").map(Self.object)
      #expect(objects.count == 4)
      let byName = Dictionary(uniqueKeysWithValues: objects.map { (($0["source"] as? String) ?? "", $0) })
      let kimono = try #require(byName[copies[1]])
      // Upright: the rotation is applied once (722x1024 seen).
      #expect(kimono["thumbnailWidth"] as? Int == 45 && kimono["thumbnailHeight"] as? Int == 64)
      #expect(kimono["format"] as? String == "avif")
      let grid = try #require(byName[copies[2]])
      #expect(grid["thumbnailWidth"] as? Int == 64 && grid["thumbnailHeight"] as? Int == 29)
      for copy in copies {
        let thumbnail = copy + ".thumb-64.jpg"
        #expect(FileManager.default.fileExists(atPath: thumbnail), "\(thumbnail)")
        #expect(try runImgfetch(["verify", thumbnail]).status == 0)
      }
      // The thumbnail of the upright picture matches the kimono's own thumbnail.
      let upright = try Self.withCopies([Self.formats("avif/LinkU_kimono.avif")]) { _, plain in
        _ = try runImgfetch(["--thumbnail", "64", "-q"] + plain)
        return try ImageDecoder.decode(contentsOf: plain[0] + ".thumb-64.jpg")
      }
      let rotated = try ImageDecoder.decode(contentsOf: copies[1] + ".thumb-64.jpg")
      #expect(HEIFReferenceLike.meanDifference(upright, rotated) < 8)
      // A second run finds every thumbnail current.
      let again = try runImgfetch(["--thumbnail", "64", "--json", directory])
      #expect(again.stdoutText.components(separatedBy: "\"reused\":true").count == 5, "\(again.stdoutText)")
    }
  }

  @Test func aDamagedHEICMakesNoThumbnail() throws {
    try Self.withCopies([Self.formats("heic/heif_truncated_truncated.heic")]) { directory, copies in
      let run = try runImgfetch(["--thumbnail", "64"] + copies)
      #expect(run.status == 4)
      #expect(run.stderrText.contains("truncated HEIC"))
      #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["heif_truncated_truncated.heic"])
    }
  }

  /// A HEIC laid out as iOS 18 writes it (an Exif block describing two images): with libheif 1.15
  /// the command says, in one line, that this libheif cannot read it and what can, exit 4, no
  /// thumbnail; with 1.18.1 or later (IMGFETCH_LIBHEIF) it is a photo like any other.
  @Test func anIOS18LayoutSaysWhichLibheifReadsIt() throws {
    try Self.withCopies([Self.formats("heic-made/shared-exif.heic")]) { directory, copies in
      let version = ImageDecoder.heifLibraryVersion ?? ""
      let run = try runImgfetch(["--thumbnail", "32"] + copies)
      guard version.hasPrefix("1.15.") else {
        #expect(run.status == 0, "libheif \(version): \(run.stderrText)")
        return
      }
      #expect(run.status == 4)
      #expect(
        run.stderrText
          == "imgfetch: \(copies[0]): unsupported HEIC: Invalid input: Unspecified: Metadata not correctly assigned "
          + "to image (libheif \(version) cannot read this layout, which iOS 18 writes; point IMGFETCH_LIBHEIF at "
          + "libheif 1.18.1 or later)\n")
      #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["shared-exif.heic"])
    }
  }

  @Test func aHEICWithoutItsExtensionIsFoundByItsContent() throws {
    try Self.withCopies([Self.formats("heic/heif_RGB_8__29x100.heif")]) { directory, copies in
      let bare = directory + "/picture"
      try FileManager.default.moveItem(atPath: copies[0], toPath: bare)
      let run = try runImgfetch(["verify", directory])
      #expect(run.status == 0 && run.stdoutText == "\(bare): OK\n")
    }
  }

  /// libheif (with its HEVC and AV1 decoders) is loaded by the first HEIF decode only: the dynamic
  /// loader's own log (LD_DEBUG=libs) of a PNG's verify names no libheif; a HEIC's does.
  @Test func libheifIsLoadedOnlyForHEIF() throws {
    let png = Fixtures.root.appendingPathComponent("Fixtures/color/reference.png").path
    let plain = try runImgfetch(["verify", png], environment: ["LD_DEBUG": "libs"])
    #expect(plain.status == 0)
    #expect(!plain.stderrText.contains("libheif"), "a PNG's verify loaded libheif")
    let heic = try runImgfetch(["verify", Self.formats("heic/heif_RGB_8__29x100.heif")], environment: ["LD_DEBUG": "libs"])
    #expect(heic.status == 0 && heic.stderrText.contains("libheif.so"))
  }

  @Test func aParseClassOfHEICsAndAVIFsIsThumbnailedAndCachedUnderItsNames() async throws {
    let stored = [
      "0123456789abcdef0123456789abcdef_phone.heic": Self.formats("heic/heif_special_xiaomi.heic"),
      "0123456789abcdef0123456789abcdef_site.avif": Self.formats("avif/LinkU_kimono.rotate90.avif"),
    ]
    let objects = [
      ParseFixture.photo("heicobject", ParseFixture.file("0123456789abcdef0123456789abcdef_phone.heic")),
      ParseFixture.photo("avifobject", ParseFixture.file("0123456789abcdef0123456789abcdef_site.avif")),
    ]
    let fixture = try await ParseFixture(files: stored, seed: ["classes": ["Photo": objects]])
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let arguments = [
      "--server", fixture.baseURL.absoluteString, "--app-id", ParseFixture.appID, "--rest-key", ParseFixture.restKey,
      "--cache-dir", cache.path, "--class", "Photo", "--column", "MainImage", "--thumbnail", "64", "--json",
    ]
    let run = try await runProcessOffThePool(Fixtures.productsDirectory.appendingPathComponent("imgfetch").path, arguments)
    #expect(run.status == 0, "\(run.stderrText)")
    let objectsOut = try run.stdoutText.split(separator: "\n").map(Self.object)
    #expect(Set(objectsOut.compactMap { $0["format"] as? String }) == ["heic", "avif"])
    let names = try FileManager.default.contentsOfDirectory(atPath: cache.path)
    #expect(names.contains { $0.hasSuffix("_phone.heic") } && names.contains { $0.hasSuffix("_site.avif") }, "\(names)")
    for object in objectsOut {
      let entry = try #require(object["cachePath"] as? String)
      #expect(try runImgfetch(["verify", entry]).status == 0)
      #expect(FileManager.default.fileExists(atPath: try #require(object["thumbnailPath"] as? String)))
    }
  }
}

/// The mean absolute difference of two images' samples (the same size and layout), for lossy copies.
enum HEIFReferenceLike {
  static func meanDifference(_ a: Image, _ b: Image) -> Double {
    let (x, y) = (a.bytes, b.bytes)
    guard a.width == b.width, a.height == b.height, x.count == y.count else { return .infinity }
    return Double(zip(x, y).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(x.count)
  }
}
