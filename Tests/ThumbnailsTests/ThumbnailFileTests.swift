import FixtureSupport
import Foundation
import ImageCodecs
import SystemFiles
import Testing
import Thumbnails

#if canImport(Glibc)
  import Glibc
#endif

@Suite(.timeLimit(.minutes(30))) struct ThumbnailFileTests {
  let thumbnailer = Thumbnailer(options: ThumbnailOptions(size: .longestSide(256)))

  /// Copies a fixture into `directory` and returns the copy's path.
  func copy(_ fixture: String, to directory: String, as name: String? = nil) throws -> String {
    let path = directory + "/" + (name ?? fixture)
    try FileManager.default.copyItem(atPath: Fixtures.image(fixture), toPath: path)
    return path
  }

  /// Sets a file's modification time to `seconds` after the epoch.
  func setModified(_ path: String, seconds: Int) {
    var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
    #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
  }

  func modified(_ path: String) throws -> Date {
    try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as! Date
  }

  @Test func namesFollowTheWholeSourceNameSizeAndFormat() {
    let name = { (source: String, size: ThumbnailSize, fit: ThumbnailFit, format: ImageFormat) in
      ThumbnailNaming.path(forSource: source, size: size, fit: fit, format: format)
    }
    #expect(name("photos/photo.jpg", .longestSide(256), .inside, .jpeg) == "photos/photo.jpg.thumb-256.jpg")
    #expect(name("photo.jpg", .box(width: 320, height: 200), .inside, .jpeg) == "photo.jpg.thumb-320x200.jpg")
    #expect(
      name("/a/photo.jpg", .box(width: 320, height: 200), .cover, .jpeg) == "/a/photo.jpg.thumb-320x200-cover.jpg")
    // The fit only names boxes.
    #expect(name("/a/photo.jpg", .longestSide(64), .cover, .png) == "/a/photo.jpg.thumb-64.png")
    #expect(name("logo.png", .longestSide(64), .inside, .png) == "logo.png.thumb-64.png")
    #expect(name("archive.tar.gz", .longestSide(8), .inside, .jpeg) == "archive.tar.gz.thumb-8.jpg")
    #expect(name("/x/.hidden", .longestSide(8), .inside, .jpeg) == "/x/.hidden.thumb-8.jpg")
    #expect(name("noextension", .longestSide(8), .inside, .png) == "noextension.thumb-8.png")
    // Two originals that differ only in their extension never share a thumbnail.
    #expect(
      name("d/photo.jpg", .longestSide(64), .inside, .jpeg) != name("d/photo.png", .longestSide(64), .inside, .jpeg))
  }

  @Test func theThumbnailIsWrittenNextToTheOriginal() throws {
    try TestImages.withTemporaryDirectory { directory in
      let source = try copy("Landscape_1.jpg", to: directory, as: "photo.jpg")
      let result = try thumbnailer.makeThumbnail(forFileAt: source)
      #expect(result.path == directory + "/photo.jpg.thumb-256.jpg")
      #expect(
        result
          == ThumbnailResult(source: source, path: result.path, width: 256, height: 171, format: .jpeg, reused: false))
      let header = try ImageDecoder.probe(contentsOf: result.path)
      #expect((header.format, header.width, header.height) == (.jpeg, 256, 171))
      #expect(TestImages.files(in: directory) == ["photo.jpg", "photo.jpg.thumb-256.jpg"])  // no temporary left
    }
  }

  @Test func sourcesWithAlphaBecomePNGAndOpaqueOnesJPEG() throws {
    try TestImages.withTemporaryDirectory { directory in
      let alpha = try copy("basn6a08.png", to: directory)
      let opaque = try copy("basn2c08.png", to: directory)
      let small = Thumbnailer(options: ThumbnailOptions(size: .longestSide(16)))
      let withAlpha = try small.makeThumbnail(forFileAt: alpha)
      #expect(withAlpha.format == .png && withAlpha.path.hasSuffix("basn6a08.png.thumb-16.png"))
      #expect(try ImageDecoder.decode(contentsOf: withAlpha.path).pixelFormat == .rgba8)
      let withoutAlpha = try small.makeThumbnail(forFileAt: opaque)
      #expect(withoutAlpha.format == .jpeg && withoutAlpha.path.hasSuffix("basn2c08.png.thumb-16.jpg"))
      // The caller can pick: JPEG from an alpha source is composited over white.
      var options = small.options
      options.format = .jpeg(quality: 90)
      let forced = try Thumbnailer(options: options).makeThumbnail(forFileAt: alpha)
      #expect(forced.format == .jpeg)
      let flattened = try ImageDecoder.decode(contentsOf: forced.path)
      #expect(flattened.pixelFormat == .rgb8)
    }
  }

  @Test func anUpToDateThumbnailIsReusedWithoutDecodingTheSource() throws {
    try TestImages.withTemporaryDirectory { directory in
      let source = try copy("Portrait_6.jpg", to: directory)
      let first = try thumbnailer.makeThumbnail(forFileAt: source)
      let written = try modified(first.path)
      // Garble the source but keep its size and time: a reuse that decoded it would fail.
      var status = stat()
      #expect(stat(source, &status) == 0)
      try Data(repeating: 0x55, count: Int(status.st_size)).write(to: URL(fileURLWithPath: source))
      var times = [status.st_atim, status.st_mtim]
      #expect(utimensat(AT_FDCWD, source, &times, 0) == 0)
      let second = try thumbnailer.makeThumbnail(forFileAt: source)
      #expect(second.reused)
      #expect((second.path, second.width, second.height, second.format) == (first.path, 171, 256, .jpeg))
      #expect(try modified(first.path) == written)
    }
  }

  @Test func aChangedOriginalIsRebuilt() throws {
    try TestImages.withTemporaryDirectory { directory in
      let source = try copy("Landscape_1.jpg", to: directory, as: "photo.jpg")
      setModified(source, seconds: 1_000_000_000)
      let first = try thumbnailer.makeThumbnail(forFileAt: source)
      #expect(!first.reused)
      // The original is replaced by another picture, newer than the thumbnail.
      try FileManager.default.removeItem(atPath: source)
      _ = try copy("Portrait_6.jpg", to: directory, as: "photo.jpg")
      let second = try thumbnailer.makeThumbnail(forFileAt: source)
      #expect(!second.reused)
      #expect((second.width, second.height) == (171, 256))
      #expect(try ImageDecoder.probe(contentsOf: second.path).width == 171)
    }
  }

  @Test func anOriginalReplacedByAnOlderFileIsRebuiltToo() throws {
    try TestImages.withTemporaryDirectory { directory in
      let source = try copy("Landscape_1.jpg", to: directory, as: "photo.jpg")
      _ = try thumbnailer.makeThumbnail(forFileAt: source)
      try FileManager.default.removeItem(atPath: source)
      _ = try copy("Portrait_6.jpg", to: directory, as: "photo.jpg")
      setModified(source, seconds: 1_000_000_000)  // older than the thumbnail, as `cp -p` would leave it
      let second = try thumbnailer.makeThumbnail(forFileAt: source)
      #expect(!second.reused && (second.width, second.height) == (171, 256))
    }
  }

  @Test func aThumbnailOlderThanItsOriginalIsRebuilt() throws {
    try TestImages.withTemporaryDirectory { directory in
      let source = try copy("Landscape_3.jpg", to: directory)
      let first = try thumbnailer.makeThumbnail(forFileAt: source)
      setModified(first.path, seconds: 1_000_000_000)
      let second = try thumbnailer.makeThumbnail(forFileAt: source)
      #expect(!second.reused)
      #expect(try modified(second.path) > Date(timeIntervalSince1970: 1_000_000_000))
    }
  }

  @Test func otherParametersRebuildTheThumbnail() throws {
    try TestImages.withTemporaryDirectory { directory in
      let source = try copy("Landscape_1.jpg", to: directory)
      let base = ThumbnailOptions(size: .longestSide(256))
      #expect(try !Thumbnailer(options: base).makeThumbnail(forFileAt: source).reused)
      #expect(try Thumbnailer(options: base).makeThumbnail(forFileAt: source).reused)
      var changes: [ThumbnailOptions] = []
      var quality = base
      quality.format = .jpeg(quality: 60)
      changes.append(quality)
      var filter = base
      filter.filter = .bilinear
      changes.append(filter)
      var unrotated = base
      unrotated.appliesOrientation = false
      changes.append(unrotated)
      for options in changes {
        // Same file name, other parameters: rebuilt once, then reused.
        let rebuilt = try Thumbnailer(options: options).makeThumbnail(forFileAt: source)
        #expect(!rebuilt.reused && rebuilt.path.hasSuffix("Landscape_1.jpg.thumb-256.jpg"))
        #expect(try Thumbnailer(options: options).makeThumbnail(forFileAt: source).reused)
      }
      // Another size is another file.
      let other = try Thumbnailer(options: ThumbnailOptions(size: .longestSide(64))).makeThumbnail(forFileAt: source)
      #expect(!other.reused && other.path.hasSuffix("Landscape_1.jpg.thumb-64.jpg"))
    }
  }

  @Test func aTruncatedThumbnailIsNotReused() throws {
    try TestImages.withTemporaryDirectory { directory in
      let source = try copy("Landscape_1.jpg", to: directory)
      let first = try thumbnailer.makeThumbnail(forFileAt: source)
      let bytes = try Data(contentsOf: URL(fileURLWithPath: first.path))
      try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: first.path))  // keeps the stamp
      let second = try thumbnailer.makeThumbnail(forFileAt: source)
      #expect(!second.reused)
      #expect(try Data(contentsOf: URL(fileURLWithPath: second.path)).count == bytes.count)
    }
  }

  @Test func aFailedWriteLeavesNoFileBehind() throws {
    try TestImages.withTemporaryDirectory { directory in
      let source = try copy("Landscape_1.jpg", to: directory)
      // A directory stands where the thumbnail should go, so the final rename fails.
      let blocked = directory + "/Landscape_1.jpg.thumb-256.jpg"
      try FileManager.default.createDirectory(atPath: blocked, withIntermediateDirectories: false)
      #expect {
        try thumbnailer.makeThumbnail(forFileAt: source)
      } throws: { error in
        guard case .write(let failure) = error as? ThumbnailError else { return false }
        return failure.path == blocked && (error as! ThumbnailError).path == blocked
      }
      #expect(TestImages.files(in: directory) == ["Landscape_1.jpg", "Landscape_1.jpg.thumb-256.jpg"])
      #expect(TestImages.files(in: blocked).isEmpty)
      // A missing directory: nothing is created.
      let bytes = try Fixtures.bytes("Landscape_1.jpg")
      #expect(throws: ThumbnailError.self) {
        try thumbnailer.writeThumbnail(of: bytes, to: directory + "/missing/thumb.jpg")
      }
      #expect(!FileManager.default.fileExists(atPath: directory + "/missing"))
    }
  }

  @Test(arguments: [
    ("truncated_jpeg.jpg", DecodeError.Kind.truncated), ("badcrc.png", .corrupt), ("badadler.png", .corrupt),
    ("truncated_image.png", .truncated), ("empty.jpg", .notAnImage), ("missing-sof.jpg", .truncated),
  ])
  func invalidSourcesGiveTheDecodersErrorAndWriteNothing(fixture: String, kind: DecodeError.Kind) throws {
    try TestImages.withTemporaryDirectory { directory in
      let source = try copy(fixture, to: directory)
      var expected: DecodeError? = nil
      do { _ = try ImageDecoder.decode(contentsOf: source) } catch { expected = error as? DecodeError }
      #expect(expected?.kind == kind)
      #expect {
        try thumbnailer.makeThumbnail(forFileAt: source)
      } throws: { error in
        guard case .decode(let decodeError) = error as? ThumbnailError else { return false }
        return decodeError.kind == kind && decodeError.path == source
          && (error as! ThumbnailError).description.hasPrefix("\(source): ")
      }
      #expect(TestImages.files(in: directory) == [fixture])
    }
  }

  /// The stamp is the encoder's comment now; PNG thumbnails written before that carry it in a
  /// `tEXt` chunk with the keyword `imgfetch-thumbnail`, and are still recognised.
  @Test func theStampIsTheEncodersCommentAndOldStampsAreStillRead() throws {
    try TestImages.withTemporaryDirectory { directory in
      let source = try copy("basn6a08.png", to: directory)
      let made = try Thumbnailer(options: ThumbnailOptions(size: .longestSide(16))).makeThumbnail(forFileAt: source)
      let metadata = try ImageMetadata.read(contentsOf: made.path)
      let stamp = try #require(ThumbnailStamp.read(fromFileAt: made.path))
      #expect(metadata.comments == [stamp.text])
      #expect((stamp.width, stamp.height) == (16, 16) && stamp.key.contains(" source=basn6a08.png "))
      var legacy = PNGBuilder()
      legacy.header(width: 1, height: 1)
      legacy.chunk("tEXt", Array("imgfetch-thumbnail".utf8) + [0] + Array(stamp.text.utf8))
      legacy.pixels([[7]])
      let old = directory + "/old.png"
      try Data(legacy.bytes).write(to: URL(fileURLWithPath: old))
      #expect(ThumbnailStamp.read(fromFileAt: old) == stamp)
      // Another keyword, or a comment that is not a stamp, is not a stamp.
      var other = PNGBuilder()
      other.header(width: 1, height: 1)
      other.chunk("tEXt", Array("Title".utf8) + [0] + Array(stamp.text.utf8))
      other.pixels([[7]])
      try Data(other.bytes).write(to: URL(fileURLWithPath: old))
      #expect(ThumbnailStamp.read(fromFileAt: old) == nil)
      let plain = directory + "/plain.jpg"
      try ImageEncoder.write(TestImages.pattern(width: 8, height: 8), as: .jpeg(), to: plain)
      #expect(ThumbnailStamp.read(fromFileAt: plain) == nil)
    }
  }

  @Test func aMissingSourceIsAnIOError() throws {
    #expect {
      try thumbnailer.makeThumbnail(forFileAt: "/nonexistent/photo.jpg")
    } throws: { error in
      guard case .decode(let decodeError) = error as? ThumbnailError else { return false }
      return decodeError.kind == .io && decodeError.path == "/nonexistent/photo.jpg"
    }
  }

  @Test func aThumbnailCanBeWrittenFromBytesInMemory() throws {
    try TestImages.withTemporaryDirectory { directory in
      let result = try thumbnailer.writeThumbnail(
        of: try Fixtures.bytes("right-orientation.jpeg"), to: directory + "/out.jpg")
      // Stored 480x640 with orientation 6: upright it is 640x480.
      #expect(
        result
          == ThumbnailResult(
            source: nil, path: directory + "/out.jpg", width: 256, height: 192, format: .jpeg, reused: false))
      let written = try ImageDecoder.probe(contentsOf: result.path)
      #expect((written.width, written.height, written.orientation) == (256, 192, .up))
    }
  }

  @Test func theBatchDeliversEveryResultInOrder() throws {
    try TestImages.withTemporaryDirectory { directory in
      var paths: [String] = []
      for name in ["Landscape_1.jpg", "badcrc.png", "Portrait_2.jpg", "basn6a08.png", "Landscape_5.jpg"] {
        paths.append(try copy(name, to: directory))
      }
      let collected = Locked<[(Int, Bool)]>([])
      Thumbnailer(options: ThumbnailOptions(size: .longestSide(32))).makeThumbnails(forFilesAt: paths, jobs: 3) {
        index, result in
        collected.withLock { $0.append((index, (try? result.get()) != nil)) }
      }
      let results = collected.withLock { $0 }
      #expect(results.map(\.0) == [0, 1, 2, 3, 4])
      #expect(results.map(\.1) == [true, false, true, true, true])
    }
  }
}
